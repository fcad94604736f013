import { withoutLinkMarkup } from '../../../formats/escape.js';
import type { Fact, Near } from '../../quantities/fact.js';
import { decimalComma } from '../../quantities/numbers.js';
import { readText, undoLayout, unreadDigits } from '../../quantities/read.js';
import { caretPowers } from '../../quantities/scientific.js';
import { CITE, citedClaims } from '../claims.js';
import { type Derived, derivedHolds, deriveFigures, FALL } from './derived.js';
import { tableHeaderUnits } from './tables.js';
import { couldBe, isEnglish, type UnreadFigure, unreadFigures } from './unread.js';

// The grounding check: every number, date, period, version and quoted phrase in a claim that cites
// sources must be in one of the sources it cites. No model: each cited source is read once into a set of
// keys (`n:1000`, `u:cur:EUR:1000`, `d:2026-03-01`, …) and its quantities on their dimensions' scales;
// each fact of the answer is a few set lookups, or a binary search for another unit or a rounding.
// A claim with nothing the reader can check, or with a figure it cannot read, is "not checked": never
// passed as supported, never flagged. So is a figure missing from its sources while a source holds a
// figure the reader could not read fully and that could be it (see unread.ts for the law): a flag is
// raised only where nothing in the cited sources could be the figure.

export interface Unsupported {
  /** The sentence, list item or table row as written (list markers removed), citations included. */
  sentence: string;
  cites: number[];
  /** What no cited source contains, as written in the sentence. */
  missing: string[];
}

/** A cited claim the check could not judge, and why. */
export interface NotChecked {
  sentence: string;
  cites: number[];
  /**
   * `nothing to compare`: no figure, date or quotation; `unread in the answer`: a figure the check
   * cannot read (`answer` holds it); `unread in a source`: a figure missing from the sources while a
   * source holds text the check could not read that could be it (`source` holds that text).
   */
  reason: 'nothing to compare' | 'unread in the answer' | 'unread in a source';
  answer?: string[];
  source?: { n: number; text: string }[];
}

export interface Grounding {
  /** Cited sentences, list items and table rows whose every figure, date and quotation was compared. */
  checked: number;
  /** Cited claims with nothing the check can compare, or with a figure it or a cited source's reader could not read. */
  notChecked: NotChecked[];
  /** Claims with something no cited source holds (counted in `checked`). */
  unsupported: Unsupported[];
}

export interface GroundingSource {
  n: number;
  text: string;
}

/** What the check reads from one source; the same for every answer (see research/read-ahead.ts). */
export interface FigureIndex {
  keys: Set<string>;
  /** The figures of its rates alone (see Fact.alone): they hold an answer's figure stated with no rate. */
  alone: Set<string>;
  /** Those figures on their scales. */
  aloneNear: Map<string, Near[]>;
  /** Quantities by dimension, sorted by value (see Near). */
  near: Map<string, Near[]>;
  /** The normalised text, padded so that phrases match whole words; made when first asked. */
  phrases: () => string[];
  /** What its sentences give by working out (see derived.ts); made when first asked. */
  derived: () => Derived;
  /** Whether it states how often something happens in a form the reader knows ("twice daily"). */
  frequencies: boolean;
  /** Its figures the reader could not read fully (see unread.ts); found when first asked. */
  unread: () => UnreadFigure[];
}

/** `ahead`: sources already read (by text), e.g. while the answer was being written. */
export function checkGrounding(
  answer: string,
  sources: GroundingSource[],
  ahead?: ReadonlyMap<string, FigureIndex>,
): Grounding {
  const texts = new Map(sources.map((s) => [s.n, s.text]));
  const indexed = new Map<number, FigureIndex>();
  const indexOf = (n: number): FigureIndex => {
    let index = indexed.get(n);
    if (!index) {
      const text = texts.get(n) ?? '';
      index = ahead?.get(text) ?? indexSource(text);
      indexed.set(n, index);
    }
    return index;
  };
  const comma = decimalComma(answer.normalize('NFKC'));

  let checked = 0;
  const notChecked: NotChecked[] = [];
  const unsupported: Unsupported[] = [];
  for (const claim of citedClaims(answer)) {
    // Citations that name no source are the citation check's to report; those cites have no text here.
    const citedNumbers = claim.cites.filter((n) => texts.has(n));
    const cited = citedNumbers.map(indexOf);
    if (cited.length === 0) continue;
    const { facts, unread } = answerFacts(claim.text, comma);
    const missing = new Set<string>();
    const unreadSource = new Map<string, { n: number; text: string }>();
    let unreadFrequency = false;
    for (const fact of facts) {
      const found =
        fact.kind === 'phrase'
          ? cited.some((s) => s.phrases().some((p) => p.includes(fact.needs[0]!)))
          : cited.some(
              (s) =>
                fact.needs.some((k) => s.keys.has(k) || (!fact.rate && s.alone.has(k))) ||
                nearIn(s.near, fact.near) ||
                (!fact.rate && nearIn(s.aloneNear, fact.near)),
            ) || cited.some((s) => derivedHolds(fact, s.derived));
      if (found) continue;
      // A frequency the sources never state in a form the reader knows ("b.i.d.") is not theirs to deny.
      if (fact.kind === 'frequency' && !cited.some((s) => s.frequencies)) {
        unreadFrequency = true;
        continue;
      }
      const could =
        fact.kind === 'phrase'
          ? []
          : cited.flatMap((s, i) =>
              s
                .unread()
                .filter((u) => couldBe(fact, u))
                .map((u) => ({ n: citedNumbers[i]!, text: u.text })),
            );
      if (could.length === 0) missing.add(fact.raw);
      for (const c of could) unreadSource.set(`${c.n}:${c.text}`, c);
    }
    const base = { sentence: claim.text, cites: claim.cites };
    if (missing.size > 0) {
      checked++;
      unsupported.push({ ...base, missing: [...missing] });
    } else if (facts.length === 0) notChecked.push({ ...base, reason: 'nothing to compare' });
    else if (unread.length > 0) notChecked.push({ ...base, reason: 'unread in the answer', answer: unread });
    else if (unreadSource.size > 0 || unreadFrequency)
      notChecked.push({ ...base, reason: 'unread in a source', source: [...unreadSource.values()] });
    else checked++;
  }
  return { checked, notChecked, unsupported };
}

/** Whether a source holds a quantity near one of the answer's, in the same dimension (see Near). */
function nearIn(near: Map<string, Near[]>, wanted: Near[] | undefined): boolean {
  if (!wanted) return false;
  for (const w of wanted) {
    // Exact values in the same unit are the keys' to match; here only what keys cannot.
    if (!w.below && !w.above && !w.approx) continue;
    const list = near.get(w.dim);
    if (!list) continue;
    const epsilon = 1e-9 * Math.max(1, Math.abs(w.value));
    const [from, to] = [w.value - (w.below ?? 0) - epsilon, w.value + (w.above ?? 0) + epsilon];
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (list[mid]!.value < from) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < list.length && list[i]!.value <= to; i++)
      if (w.approx || list[i]!.cls !== w.cls) return true;
  }
  return false;
}

/** The facts an answer's claim states (quoted phrases of two or more words, then its figures) and its unread digits. */
export function answerFacts(sentence: string, comma: boolean): { facts: Fact[]; unread: string[] } {
  const facts: Fact[] = [];
  const text = caretPowers(sentence)
    .normalize('NFKC')
    .replace(CITE, ' ')
    .replace(/\]\([^)\s]*\)/g, ']')
    .replace(/\bhttps?:\/\/\S+/g, ' ')
    // Code is not a claim: what is inside backticks is neither checked nor flagged.
    .replace(/`[^`]*`/g, (m) => ' '.repeat(m.length))
    // Quoted phrases first, so that a number inside a quotation is checked as part of it, not twice.
    .replace(/"([^"\n]+)"|“([^”\n]+)”/g, (match, straight?: string, curly?: string) => {
      const phrase = normalisePhrase(straight ?? curly ?? '');
      if (phrase.split(' ').length < 2) return match;
      facts.push({ kind: 'phrase', raw: match, gives: [], needs: [` ${phrase} `] });
      return ' '.repeat(match.length);
    });
  const read = readText(text, { comma, flexibleSign: FALL.test(text) });
  for (const f of read.facts) if (!f.weak) facts.push(f);
  return { facts, unread: unreadDigits(read.rest) };
}

/** Reads a source's facts once: the costly part of the check, which does not depend on the answer. */
export function indexSource(source: string): FigureIndex {
  // Link addresses and footnote marks of converted HTML and Word text are neither words nor figures.
  const text = withoutLinkMarkup(source);
  const english = isEnglish(text);
  const { facts, rest, windows } = readText(text, { english });
  for (const f of tableHeaderUnits(text)) facts.push(f);
  const keys = keysOf(facts);
  const alone = new Set(facts.flatMap((f) => f.alone ?? []));
  let phrases: string[] | undefined;
  let derived: Derived | undefined;
  let unread: UnreadFigure[] | undefined;
  return {
    derived: () => (derived ??= deriveFigures(text)),
    keys,
    alone,
    aloneNear: nearOf(facts, (f) => f.aloneNear),
    near: nearOf(facts),
    phrases: () => (phrases ??= phrasesOf(caretPowers(text))),
    frequencies: facts.some((f) => f.kind === 'frequency'),
    unread: () => (unread ??= unreadFigures(windows, rest, english)),
  };
}

/**
 * The keys a source's facts give; a weak figure (a lone ordinal: "per second", "the second quarter")
 * holds the same figure unitless, never one with a unit as a bare number does. A loop of its own: the
 * loop makes a function hot, and the engine then compiles it with all it calls inlined; here that is
 * this small function, not the whole reading.
 */
function keysOf(facts: Fact[]): Set<string> {
  const keys = new Set<string>();
  for (const fact of facts) for (const k of fact.gives) if (!fact.weak || !k.startsWith('b:')) keys.add(k);
  return keys;
}

function nearOf(facts: Fact[], of: (f: Fact) => Near[] | undefined = (f) => f.near): Map<string, Near[]> {
  const near = new Map<string, Near[]>();
  for (const fact of facts)
    for (const n of of(fact) ?? []) {
      if (n.asked) continue;
      const list = near.get(n.dim);
      if (list) list.push(n);
      else near.set(n.dim, [n]);
    }
  for (const list of near.values()) list.sort((a, b) => a.value - b.value);
  return near;
}

/** A source's text as quotations are looked for in it: as written, and with its layout undone. */
const phrasesOf = (text: string): string[] =>
  [...new Set([text.normalize('NFKC'), undoLayout(text)])].map((t) => ` ${normalisePhrase(t)} `);

/** Case, punctuation, quote style and spacing do not matter when comparing quotations. */
function normalisePhrase(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[‘’`´]/g, "'")
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}
