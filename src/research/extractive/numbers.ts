import { decimalComma, parseNumbers } from '../quantities/numbers.js';

// Numbers as a question and a sentence use them: a value, and the comparison in front of it ("above
// $1,000", "up to 30 days"), so that "above $1,000" matches the sentence that says "above $1,000" and
// not the one that says "up to $1,000".

/** `gt`: above, over, more than, at least …; `lt`: up to, below, under, within …; undefined: a bare number. */
export type Comparison = 'gt' | 'lt' | undefined;

export interface Quantity {
  value: number;
  comparison: Comparison;
  /** Where it sits in the text (its first character), to pair the two ends of a band. */
  at: number;
  end: number;
}

const GT =
  /(?:\babove|\bover|\bmore than|\bexceeding|\bgreater than|\bat least|\bfrom|\bafter|\bbeyond|\blonger than|\bolder than)\s*$/i;
const LT =
  /(?:\bup to|\bbelow|\bunder|\bless than|\bat most|\bwithin|\bno more than|\bshorter than|\bbefore|\bmaximum(?: of)?|\bmax\.?)\s*$/i;

/** Every number in the text (read by the one quantity reader), with the comparison in the few words before it. */
export function quantities(text: string): Quantity[] {
  const found: Quantity[] = [];
  for (const n of parseNumbers(text, { comma: decimalComma(text) })) {
    const before = text.slice(Math.max(0, n.start - 24), n.start);
    const comparison: Comparison = GT.test(before) ? 'gt' : LT.test(before) ? 'lt' : undefined;
    found.push({ value: n.readings[0]!.value, comparison, at: n.start, end: n.end });
  }
  return found;
}

export interface Band {
  low: number;
  high: number;
  /** "$5,000 to $50,000" holds 5,000; "above $150" does not hold 150. */
  lowInclusive?: boolean;
}

/**
 * The bands a sentence states: "above $150 and up to $1,000" (150–1000), "$5,000 to $50,000", "between 2
 * and 5", or one side alone ("above $1,000": 1000–∞). The two ends of a band sit in one clause.
 */
export function bands(text: string): Band[] {
  const qs = quantities(text);
  const out: Band[] = [];
  for (let i = 0; i < qs.length; i++) {
    const a = qs[i]!;
    const b = qs[i + 1];
    const between = b ? text.slice(a.end, b.at) : '';
    if (b && between.length < 40 && !/[;.]\s/.test(between)) {
      if (a.comparison === 'gt' && b.comparison === 'lt') {
        out.push({ low: a.value, high: b.value });
        i++;
        continue;
      }
      const range =
        /^\s*(?:to|-|–)\s*$/i.test(between) ||
        (/^\s*and\s*$/i.test(between) && /\bbetween\s*$/i.test(text.slice(0, a.at)));
      if (!a.comparison && !b.comparison && range) {
        out.push({ low: a.value, high: b.value, lowInclusive: true });
        i++;
        continue;
      }
    }
    if (a.comparison === 'gt') out.push({ low: a.value, high: Number.POSITIVE_INFINITY });
    else if (a.comparison === 'lt') out.push({ low: Number.NEGATIVE_INFINITY, high: a.value });
  }
  return out;
}

/** The question's amount as a band: "above $1,000" is 1000–∞, "$600" is 600 alone. */
export function askedBand(q: Quantity): Band {
  if (q.comparison === 'gt') return { low: q.value, high: Number.POSITIVE_INFINITY };
  if (q.comparison === 'lt') return { low: Number.NEGATIVE_INFINITY, high: q.value };
  return { low: q.value, high: q.value, lowInclusive: true };
}

/** Whether the sentence's band answers for every amount the question's band asks about. */
export function holds(outer: Band, inner: Band): boolean {
  const lowOk = inner.lowInclusive
    ? outer.low < inner.low || (outer.low === inner.low && Boolean(outer.lowInclusive))
    : outer.low <= inner.low;
  return lowOk && outer.high >= inner.high;
}
