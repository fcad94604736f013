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
  | 'phrase';

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
  const out = text.replace(pattern, (...args: unknown[]) => {
    const match = args[0] as string;
    const groups = typeof args.at(-1) === 'object' ? 1 : 0;
    const index = args.at(-2 - groups) as number;
    // The character before, tested here rather than by a lookbehind that would run at every position.
    if (notAfter && index > 0 && notAfter.test(text[index - 1]!)) return match;
    const m = Object.assign(args.slice(0, -2 - groups) as string[], {
      index,
      input: text,
    }) as RegExpExecArray;
    const found = read(m);
    if (!found) return match;
    for (const f of found) facts.push(f);
    return blank(match);
  });
  return { facts, text: out };
}

/** A fact compared by key alone: dates, times, periods, versions. */
export const keyed = (kind: FactKind, raw: string, gives: string[], needs: string[]): Fact => ({
  kind,
  raw: raw.trim(),
  gives,
  needs,
});
