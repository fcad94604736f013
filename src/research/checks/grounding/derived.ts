import type { Fact, Near } from '../../quantities/fact.js';
import { YEAR_LIKE } from '../../quantities/numbers.js';
import { readFacts } from '../../quantities/read.js';
import { sourceSentences } from '../../text.js';

// Figures an answer may work out from two figures of one sentence of its source: the share one count is
// of another ("1,800 of the 2,400 respondents" holds "75%" and "three quarters"), the difference of
// two per cents in points ("fell from 6% to 4.5%" holds "1.5 percentage points"), a level and its change
// in points ("67.3%, up 2.1 points" holds the 65.2% before), and where the sentence compares or changes
// figures ("from 120,000 to 360,000", "411 seats, while … 121"): their difference in their unit
// ("240,000 more", "290 more seats", "rose by 45p"), their ratio ("three times as many", "tripled") and
// their change in per cent ("rose by 50%"), and the years between two years ("over two decades"). One
// sentence only, so that two unrelated figures of a long source do not make one by chance.

export interface Derived {
  /** Per cents, sorted. */
  shares: number[];
  /** Changes in per cent of two figures of one dimension, sorted ("rose by 50%", "cut by a fifth"). */
  changesPct: number[];
  /** Percentage points, sorted. */
  points: number[];
  /** Per cent levels a level and its change in points give, sorted. */
  levels: number[];
  /** Differences of two figures of one dimension (see Near.dim), sorted, by dimension. */
  changes: Map<string, number[]>;
  /** Ratios of two figures of one dimension, sorted. */
  ratios: number[];
  /** Keys of the negative figures a fall in words stands for ("fell 2.5%" holds "-2.5%"). */
  falls: Set<string>;
}

/**
 * A sentence that says a figure fell: an unsigned figure in it may stand for a negative one, both ways —
 * an answer's "fell 5%" restates a source's "-5%", and an answer's "-2.5%" a source's "fell 2.5%".
 */
export const FALL =
  /\b(?:fell|fall(?:s|ing)?|drop(?:s|ped)?|declin\w*|decreas\w*|down|lower|loss(?:es)?|lost|shr[aiu]nk\w*|reduc\w*|cut|negative|minus|deficit|below|contract(?:ed|s|ing|ion)|slump\w*|slid(?:e|es)?|plung\w*|tumbl\w*|sank|sink(?:s|ing)?|dipped)\b/i;
const NEGATIVE_KEY = /:-\d/;
/** A figure's key (as written, bare, or with its unit), positive: its value is after the last colon. */
const FIGURE_KEY = /^(?:n|b|u|w|wb|wu):.*:?\d[\d.,]*$/;
const negated = (key: string) => key.replace(/:(?=[\d.,]+$)/, ':-');

/** At most this many figures of a sentence are paired (a table row run together is not prose). */
const MAX_FIGURES = 12;

export function deriveFigures(text: string): Derived {
  const shares: number[] = [];
  const points: number[] = [];
  const levels: number[] = [];
  const changesPct: number[] = [];
  const changes = new Map<string, number[]>();
  const ratios: number[] = [];
  const falls = new Set<string>();
  // Table rows are left out: two cells of a row are rarely a part and its whole.
  const prose = text.replace(/^[ \t]*\|.*$/gm, '');
  for (const paragraph of prose.split(/\n\s*\n|\n(?=\s*(?:[-*+]|\d+[.)])\s)/))
    for (const sentence of sourceSentences(paragraph.replace(/\s+/g, ' '))) {
      if (!/\d/.test(sentence)) continue;
      const fell = FALL.test(sentence);
      const facts = readFacts(sentence);
      // Its figures negated (not temperatures, whose sign is their own): what flexibleSign reads, from
      // the facts already read.
      if (fell)
        for (const fact of facts)
          for (const k of fact.gives) if (FIGURE_KEY.test(k) && !k.includes(':deg')) falls.add(negated(k));
      const counts: number[] = [];
      const pcts: number[] = [];
      const ppts: number[] = [];
      const byDim = new Map<string, number[]>();
      for (const fact of facts)
        for (const n of fact.near ?? []) {
          if (n.asked) continue;
          if (n.dim === 'b' && n.value > 0) counts.push(n.value);
          else if (n.dim === 'pct' && n.cls === 'pct') pcts.push(n.value);
          else if (n.dim === 'pp' && n.cls === 'pp') ppts.push(n.value);
          if (n.dim !== 'n' && n.dim !== 'pct' && n.dim !== 'pp') add(byDim, n.dim, n.value);
        }
      // A share needs a part and its whole: "1,800 of the 2,400", "of the 2,400 asked, 1,800" — not
      // "grew from 8,000 to 10,000", which is no share of anything.
      // So do amounts and measures of one kind: "£9.2m of the £14.6m raised" holds "63%".
      if (/\bof\b/i.test(sentence)) {
        pairs(counts, (a, b) => a < b && shares.push((100 * a) / b));
        for (const [dim, values] of byDim)
          if (dim !== 'b' && dim !== 'times')
            pairs(values, (a, b) => a > 0 && a < b && shares.push((100 * a) / b));
      }
      pairs(pcts, (a, b) => a !== b && points.push(Math.abs(a - b)));
      for (const p of pcts) for (const d of ppts) levels.push(p - d, p + d);
      if (!CHANGE.test(sentence)) continue;
      // "cut from 10% to 8%" is cut by a fifth: per cents change in per cent too (their difference is
      // in points, above).
      // In per cent of where it started: the smaller when it rose, the larger when it fell.
      const changePct = (a: number, b: number) => changesPct.push((100 * (b - a)) / (fell ? b : a));
      pairs(pcts, (a, b) => a > 0 && a < b && changePct(a, b));
      // "halved to £500": it was £1,000; "tripled to 9,000": 3,000.
      const times = byDim.get('times') ?? [];
      for (const [dim, values] of byDim)
        if (dim !== 'times') for (const t of times) for (const v of values) add(changes, dim, v / t);
      for (const [dim, values] of byDim) {
        // A year-like number may be a count (1,820 rhinos): years are paired as both.
        const years = dim === 'b' ? values.filter((v) => YEAR_LIKE.test(String(v))) : [];
        pairs(years, (a, b) => a < b && add(changes, 'months', 12 * (b - a)));
        pairs(values, (a, b) => {
          if (a >= b || a <= 0) return;
          add(changes, dim, b - a);
          ratios.push(b / a, a / b);
          changePct(a, b);
        });
      }
    }
  for (const list of changes.values()) list.sort((a, b) => a - b);
  const sorted = (list: number[]) => list.sort((a, b) => a - b);
  return {
    shares: sorted(shares),
    points: sorted(points),
    levels: sorted(levels),
    changesPct: sorted(changesPct),
    changes,
    ratios: sorted(ratios),
    falls,
  };
}

/** Words of a sentence that compares or changes figures. */
const CHANGE =
  /\b(?:from|than|while|whereas|against|compared|versus|between|rose|rise[sn]?|grew|grow(?:s|n)?|increas\w*|gain\w*|add\w*|up|more|fewer|less|doubl\w*|tripl\w*|trebl\w*|halv\w*|beat\w*|improv\w*|ahead|behind|faster|slower|cheaper|higher|larger|bigger|smaller|longer|shorter|widen\w*|narrow\w*)\b/i;

function add(map: Map<string, number[]>, key: string, value: number): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

function pairs(values: number[], each: (a: number, b: number) => unknown): void {
  const v = [...new Set(values)].slice(0, MAX_FIGURES);
  for (const a of v) for (const b of v) if (a !== b) each(a, b);
}

/** Whether a figure of an answer is one the source's sentences give by working out (see Derived). */
export function derivedHolds(fact: Fact, derived: () => Derived): boolean {
  if (fact.needs.some((k) => NEGATIVE_KEY.test(k) && derived().falls.has(k))) return true;
  if (fact.rate) return false;
  return (fact.near ?? []).some((n) => {
    if (n.dim === 'n') return false;
    const d = derived();
    if (n.dim === 'pct')
      return (
        fact.kind === 'percent' && (within(d.shares, n) || within(d.levels, n) || within(d.changesPct, n))
      );
    if (n.dim === 'pp') return fact.kind === 'percent' && within(d.points, n);
    if (n.dim === 'times') return within(d.ratios, n);
    const list = d.changes.get(n.dim);
    return list !== undefined && within(list, n);
  });
}

/** The answer's own precision (half its last digit, or its approximation) around its value. */
function within(sorted: number[], n: Near): boolean {
  const epsilon = 1e-9 * Math.max(1, Math.abs(n.value));
  const [from, to] = [n.value - (n.below ?? 0) - epsilon, n.value + (n.above ?? 0) + epsilon];
  return sorted.some((v) => v >= from && v <= to);
}
