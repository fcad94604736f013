// What the readers produce: each number, date or period read once into a fact that says both what a
// source stating it supports and what an answer stating it needs. Matching is then set lookups.

export type FactKind =
  | 'amount'
  | 'percent'
  | 'duration'
  | 'measure'
  | 'number'
  | 'date'
  | 'time'
  | 'period'
  | 'version'
  | 'identifier'
  | 'frequency'
  | 'phrase';

/**
 * A quantity placed on its dimension's scale, for comparisons that keys cannot make: a value in another
 * unit of the same dimension (3 miles and 4.8 km), or an approximate one ("about 40%" for 38.6%).
 */
export interface Near {
  /** `time`, `length`, `pct`, `cur:USD`, …; `n` for any number as written, `b` for a bare one. */
  dim: string;
  /** In the dimension's base unit. */
  value: number;
  /** The unit as read: the same unit compares by key, exactly, unless the answer is approximate. */
  cls: string;
  /** An answer's: how far below and above it a source's value may be, from its precision and wording. */
  below?: number;
  above?: number;
  approx?: boolean;
  /** Only an answer's: a source stating it does not give it. */
  asked?: boolean;
}

export interface Fact {
  kind: FactKind;
  /** As written, for the report of what is missing. */
  raw: string;
  /** Keys a source that states this fact supports. */
  gives: string[];
  /** An answer's fact holds when a cited source gives any one of these keys. */
  needs: string[];
  /** Counted in a source, never checked in an answer: a lone "one" is mostly a pronoun, "first" an ordinal. */
  weak?: boolean;
  /**
   * A rate's ("$3 per hour"): the keys of its figure alone. A source stating the rate supports an answer
   * that leaves the rate out ("parking costs $3"), never one that states another ("$3 a day").
   */
  alone?: string[];
  /** The same figure alone on its scales (see Near), for an answer's figure in another unit or approximate. */
  aloneNear?: Near[];
  /** Stated as a rate: only a source's rate, or its figure with no rate at all, holds it. */
  rate?: boolean;
  /** A source's quantities on their scales; an answer's, each with its tolerance (see Near). */
  near?: Near[];
}

/** A number as the key part: integers exactly, fractions to 12 significant digits (no float noise). */
export const canonical = (n: number): string =>
  Number.isSafeInteger(n) ? String(n) : String(Number(n.toPrecision(12)));

export const pad2 = (n: number): string => String(n).padStart(2, '0');

/** Replaces a span that has been read with spaces, so later readers do not read it again. */
export const blank = (s: string): string => ' '.repeat(s.length);

/**
 * Reads every match of a pattern into facts; the spans read (where `read` returns facts) are blanked in
 * the text returned, so that a date's digits are not read again as numbers. A match right after a
 * character of `notAfter` is not read (it is the tail of a longer number or code).
 */
export function readAll(
  text: string,
  pattern: RegExp,
  read: (m: RegExpExecArray) => Fact[] | undefined,
  notAfter?: RegExp,
): { facts: Fact[]; text: string } {
  const facts: Fact[] = [];
  // The text is rebuilt only around the spans read: most passes over a source read a few spans or none.
  let out = '';
  let at = 0;
  pattern.lastIndex = 0;
  for (let m = pattern.exec(text); m; m = pattern.exec(text)) {
    if (m[0] === '') {
      pattern.lastIndex++;
      continue;
    }
    // The character before, tested here rather than by a lookbehind that would run at every position.
    if (notAfter && m.index > 0 && notAfter.test(text[m.index - 1]!)) continue;
    const found = read(m);
    if (!found) continue;
    for (const f of found) facts.push(f);
    out += text.slice(at, m.index) + blank(m[0]);
    at = m.index + m[0].length;
  }
  return { facts, text: at === 0 ? text : out + text.slice(at) };
}

/**
 * Calls `each` with the start and end of every run of ASCII digits. `test` moves a global pattern on
 * without building a match, and the run's start is found by stepping back over its digits.
 */
export function digitRuns(text: string, each: (start: number, end: number) => void): void {
  const digits = /\d+/g;
  while (digits.test(text)) {
    const end = digits.lastIndex;
    let start = end - 1;
    while (start > 0 && isDigit(text.charCodeAt(start - 1))) start--;
    each(start, end);
  }
}

const isDigit = (code: number) => code >= 48 && code <= 57;

/** A fact compared by key alone: dates, times, periods, versions. */
export const keyed = (kind: FactKind, raw: string, gives: string[], needs: string[]): Fact => ({
  kind,
  raw: raw.trim(),
  gives,
  needs,
});
