import type { Fact, Near } from '../quantities/fact.js';
import { readFacts } from '../quantities/read.js';
import { sourceSentences } from '../text.js';

// Figures an answer may work out from two figures of one sentence of its source: the share one count is
// of another ("1,800 of the 2,400 respondents" holds "75%" and "three quarters"), and the difference of
// two per cents in points ("fell from 6% to 4.5%" holds "1.5 percentage points"). One sentence only, so
// that two unrelated figures of a long source do not make a share by chance.

export interface Derived {
  /** Per cents, sorted. */
  shares: number[];
  /** Percentage points, sorted. */
  points: number[];
  /** Keys of the negative figures a fall in words stands for ("fell 2.5%" holds "-2.5%"). */
  falls: Set<string>;
}

/**
 * A sentence that says a figure fell: an unsigned figure in it may stand for a negative one, both ways —
 * an answer's "fell 5%" restates a source's "-5%", and an answer's "-2.5%" a source's "fell 2.5%".
 */
export const FALL =
  /\b(?:fell|fall(?:s|ing)?|drop(?:s|ped)?|declin\w*|decreas\w*|down|lower|loss(?:es)?|lost|shr[aiu]nk\w*|reduc\w*|cut|negative|minus|deficit|below)\b/i;
const NEGATIVE_KEY = /:-\d/;

/** At most this many figures of a sentence are paired (a table row run together is not prose). */
const MAX_FIGURES = 12;

export function deriveFigures(text: string): Derived {
  const shares: number[] = [];
  const points: number[] = [];
  const falls = new Set<string>();
  // Table rows are left out: two cells of a row are rarely a part and its whole.
  const prose = text.replace(/^[ \t]*\|.*$/gm, '');
  for (const paragraph of prose.split(/\n\s*\n|\n(?=\s*(?:[-*+]|\d+[.)])\s)/))
    for (const sentence of sourceSentences(paragraph.replace(/\s+/g, ' '))) {
      if (!/\d/.test(sentence)) continue;
      if (FALL.test(sentence))
        for (const fact of readFacts(sentence, { flexibleSign: true }))
          for (const k of fact.gives) if (NEGATIVE_KEY.test(k)) falls.add(k);
      const counts: number[] = [];
      const pcts: number[] = [];
      for (const fact of readFacts(sentence))
        for (const n of fact.near ?? []) {
          if (n.asked) continue;
          if (n.dim === 'b' && n.value > 0) counts.push(n.value);
          else if (n.dim === 'pct' && n.cls === 'pct') pcts.push(n.value);
        }
      // A share needs a part and its whole: "1,800 of the 2,400", "of the 2,400 asked, 1,800" — not
      // "grew from 8,000 to 10,000", which is no share of anything.
      if (/\bof\b/i.test(sentence)) pairs(counts, (a, b) => a < b && shares.push((100 * a) / b));
      pairs(pcts, (a, b) => a !== b && points.push(Math.abs(a - b)));
    }
  return { shares: shares.sort((a, b) => a - b), points: points.sort((a, b) => a - b), falls };
}

function pairs(values: number[], each: (a: number, b: number) => unknown): void {
  const v = [...new Set(values)].slice(0, MAX_FIGURES);
  for (const a of v) for (const b of v) if (a !== b) each(a, b);
}

/** Whether a per cent or points figure of an answer is one the source's sentences give by working out. */
export function derivedHolds(fact: Fact, derived: () => Derived): boolean {
  if (fact.needs.some((k) => NEGATIVE_KEY.test(k) && derived().falls.has(k))) return true;
  if (fact.kind !== 'percent' || fact.rate) return false;
  return (fact.near ?? []).some((n) =>
    n.dim === 'pct' ? within(derived().shares, n) : n.dim === 'pp' && within(derived().points, n),
  );
}

/** The answer's own precision (half its last digit, or its approximation) around its value. */
function within(sorted: number[], n: Near): boolean {
  const epsilon = 1e-9 * Math.max(1, Math.abs(n.value));
  const [from, to] = [n.value - (n.below ?? 0) - epsilon, n.value + (n.above ?? 0) + epsilon];
  return sorted.some((v) => v >= from && v <= to);
}
