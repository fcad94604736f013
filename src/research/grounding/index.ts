import { CITE, citedClaims } from '../claims.js';
import type { Fact } from './fact.js';
import { decimalComma } from './numbers.js';
import { readFacts, undoLayout } from './read.js';

// The grounding check: every number, date, period, version and quoted phrase in a claim that cites
// sources must be in one of the sources it cites. No model: each cited source is read once into a set of
// keys (`n:1000`, `u:cur:EUR:1000`, `d:2026-03-01`, …); each fact of the answer is a few set lookups.

export interface Unsupported {
  /** The sentence, list item or table row as written (list markers removed), citations included. */
  sentence: string;
  cites: number[];
  /** What no cited source contains, as written in the sentence. */
  missing: string[];
}

export interface Grounding {
  /** Cited sentences, list items and table rows examined. */
  checked: number;
  unsupported: Unsupported[];
}

export interface GroundingSource {
  n: number;
  text: string;
}

/** What the check reads from one source; the same for every answer (see research/read-ahead.ts). */
export interface SourceIndex {
  keys: Set<string>;
  /** The normalised text, padded so that phrases match whole words; made when first asked. */
  phrases: () => string[];
}

/** `ahead`: sources already read (by text), e.g. while the answer was being written. */
export function checkGrounding(
  answer: string,
  sources: GroundingSource[],
  ahead?: ReadonlyMap<string, SourceIndex>,
): Grounding {
  const texts = new Map(sources.map((s) => [s.n, s.text]));
  const indexed = new Map<number, SourceIndex>();
  const indexOf = (n: number): SourceIndex => {
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
  const unsupported: Unsupported[] = [];
  for (const claim of citedClaims(answer)) {
    // Citations that name no source are the citation check's to report; those cites have no text here.
    const cited = claim.cites.filter((n) => texts.has(n)).map(indexOf);
    if (cited.length === 0) continue;
    checked++;
    const missing = new Set<string>();
    for (const fact of answerFacts(claim.text, comma)) {
      const found =
        fact.kind === 'phrase'
          ? cited.some((s) => s.phrases().some((p) => p.includes(fact.needs[0]!)))
          : cited.some((s) => fact.needs.some((k) => s.keys.has(k)));
      if (!found) missing.add(fact.raw);
    }
    if (missing.size > 0)
      unsupported.push({ sentence: claim.text, cites: claim.cites, missing: [...missing] });
  }
  return { checked, unsupported };
}

// "fell 5%" restates a source's "-5%": an unsigned figure may stand for a negative one in such a sentence.
const FALL =
  /\b(?:fell|fall(?:s|ing)?|drop(?:s|ped)?|declin\w*|decreas\w*|down|lower|loss(?:es)?|lost|shr[aiu]nk\w*|reduc\w*|cut|negative|minus|deficit|below)\b/i;

/** The facts an answer's claim states: quoted phrases of two or more words, then its figures. */
export function answerFacts(sentence: string, comma: boolean): Fact[] {
  const facts: Fact[] = [];
  const text = sentence
    .normalize('NFKC')
    .replace(CITE, ' ')
    .replace(/\]\([^)\s]*\)/g, ']')
    .replace(/\bhttps?:\/\/\S+/g, ' ')
    // Quoted phrases first, so that a number inside a quotation is checked as part of it, not twice.
    .replace(/"([^"\n]+)"|“([^”\n]+)”/g, (match, straight?: string, curly?: string) => {
      const phrase = normalisePhrase(straight ?? curly ?? '');
      if (phrase.split(' ').length < 2) return match;
      facts.push({ kind: 'phrase', raw: match, gives: [], needs: [` ${phrase} `] });
      return ' '.repeat(match.length);
    });
  facts.push(...readFacts(text, { comma, flexibleSign: FALL.test(text) }).filter((f) => !f.weak));
  return facts;
}

/** Reads a source's facts once: the costly part of the check, which does not depend on the answer. */
export function indexSource(text: string): SourceIndex {
  const keys = keysOf(readFacts(text));
  let phrases: string[] | undefined;
  return {
    keys,
    phrases: () =>
      (phrases ??= [...new Set([text.normalize('NFKC'), undoLayout(text)])].map(
        (t) => ` ${normalisePhrase(t)} `,
      )),
  };
}

/**
 * The keys a source's facts give. A loop of its own: the loop makes a function hot, and the engine then
 * compiles it with all it calls inlined; here that is this small function, not the whole reading.
 */
function keysOf(facts: Fact[]): Set<string> {
  const keys = new Set<string>();
  for (const fact of facts) for (const k of fact.gives) keys.add(k);
  return keys;
}

/** Case, punctuation, quote style and spacing do not matter when comparing quotations. */
function normalisePhrase(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[‘’`´]/g, "'")
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}
