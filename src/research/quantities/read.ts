import { composeScaled } from './cldr.js';
import { readDates } from './dates.js';
import { readEras } from './eras.js';
import { digitRuns, type Fact } from './fact.js';
import { readFrequencies } from './frequencies.js';
import { readIdentifiers } from './identifiers.js';
import { decimalConvention, readNumbers } from './numbers.js';
import { readDurations, readRatios, readSlashFractions } from './pairs.js';
import { readPeriods, readPeriodWords } from './periods.js';
import { writeOutPowers } from './scientific.js';
import { readNumberWords, readShares } from './words.js';

// Reading a text's facts, once: its layout is undone first (list markers and heading numbers are not
// facts; a number or word broken across a line end is joined). Numbers in words and periods in words
// ("third quarter") are read from the whole text; the rest only from windows around digits, where each
// family reads and blanks its spans, most specific first: dates, periods and versions, then numbers.

export interface ReadOptions {
  /** The text's decimal convention; judged from this text when not given. */
  comma?: boolean;
  /**
   * Whether the text is English prose: where its figures give no evidence of their decimal convention,
   * English writes a point; any other language may write either, and `1.000` is then left unread.
   */
  english?: boolean;
  /** See NumberOptions.flexibleSign. */
  flexibleSign?: boolean;
}

export function readFacts(input: string, o: ReadOptions = {}): Fact[] {
  return readText(input, o).facts;
}

/**
 * Runs of digits in what the readers left of a text (readText's `rest`): what no reader could take
 * (`1,000,5`, `10^6`); a digit glued to a word ("pre-2020", "3rd") was never a figure. Only an
 * answer's claim is asked: a source's unread digits support nothing.
 */
export function unreadDigits(rest: string): string[] {
  return rest.match(/(?<!\p{L}[-‐]?|[\d.,])\d[\d.,]*(?!\p{L})/gu) ?? [];
}

/**
 * The facts of a text, and the text with what they were read from blanked (`rest`: see unreadDigits);
 * `windows` is that text before the digit readers blanked it (the same length).
 * A claim holding digits no reader took is "not checked" rather than judged on the rest.
 */
export function readText(
  input: string,
  o: ReadOptions = {},
): { facts: Fact[]; rest: string; windows: string } {
  const laid = composeScaled(undoLayout(writeOutPowers(input)));
  // "a 7-to-2 vote", "a 10-to-15-minute walk": a range written as one compound word.
  let whole = laid.includes('-to-') ? laid.replace(/(\d)-to-(?=\d)/g, '$1 to ') : laid;
  // "37 and a half years", "2 and a quarter hours": the figure with its fraction.
  if (whole.includes(' and a '))
    whole = whole.replace(AND_A_FRACTION, (_, n: string, f: string) => FRACTION_DIGITS[f]!(n));
  const frequencies = readFrequencies(whole);
  const periodWords = readPeriodWords(frequencies.text);
  const eras = readEras(periodWords.text);
  const shares = readShares(eras.text);
  const words = {
    facts: [...frequencies.facts, ...periodWords.facts, ...eras.facts, ...shares.facts],
    text: shares.text,
  };
  const text = digitWindows(words.text);
  const convention = o.comma === undefined ? decimalConvention(text) : undefined;
  const comma = o.comma ?? convention === 'comma';
  const undecided = o.comma === undefined && convention === undefined && o.english === false;
  const durations = readDurations(text);
  const dates = readDates(durations.text);
  const periods = readPeriods(dates.text);
  const ids = readIdentifiers(periods.text);
  const slashes = readSlashFractions(ids.text);
  const ratios = readRatios(slashes.text);
  const numbers = readNumbers(ratios.text, {
    comma,
    undecided,
    english: o.english,
    flexibleSign: o.flexibleSign,
  });
  const facts = [
    ...words.facts,
    ...durations.facts,
    ...dates.facts,
    ...periods.facts,
    ...ids.facts,
    ...slashes.facts,
    ...ratios.facts,
    ...numbers.facts,
    ...readNumberWords(words.text),
  ];
  return { facts, rest: numbers.text, windows: text };
}

// Digits only: number words with "and a half" are read with the precision of a half by words.ts.
const AND_A_FRACTION = /(?<![\d.,])(\d+) and a (half|quarter)\b/g;
const FRACTION_DIGITS: Record<string, (n: string) => string> = {
  half: (n) => `${n}.5`,
  quarter: (n) => `${n}.25`,
};
const TENS_WORD = 'twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety';
const BEFORE = 24;
const AFTER = 40;

/**
 * The parts of a text that can hold a figure in digits: a window around every run of digits, cut at
 * spaces, joined by blank lines. Prose between figures is never scanned by the date, period and number
 * readers, which keeps a long source's reading to one quick pass over the whole of it.
 */
function digitWindows(text: string): string {
  const spans: [number, number][] = [];
  digitRuns(text, (start, end) => {
    const last = spans.at(-1);
    if (last && start - BEFORE <= last[1]) last[1] = end + AFTER;
    else spans.push([start - BEFORE, end + AFTER]);
  });
  if (spans.length === 1 && spans[0]![0] <= 0 && spans[0]![1] >= text.length) return text;
  return spans
    .map(([start, end]) => {
      const from = start <= 0 ? 0 : Math.max(text.lastIndexOf(' ', start), text.lastIndexOf('\n', start)) + 1;
      const to = end >= text.length ? text.length : nextSpace(text, end);
      return text.slice(from, to);
    })
    .join('\n\n');
}

function nextSpace(text: string, from: number): number {
  const space = /\s/g;
  space.lastIndex = from;
  return space.exec(text)?.index ?? text.length;
}

const TENS_END = new RegExp(`(?:${TENS_WORD})$`, 'i');

// Characters NFKC leaves as they are (ASCII, accented Latin letters, common punctuation and currency
// signs): normalising only the runs of other characters is many times faster on a long source.
const UNCHANGED =
  /[^\x00-\x9f\u00a1-\u00a7\u00a9\u00ab-\u00ae\u00b0\u00b1\u00b6\u00b7\u00bb\u00bf-\u00ff\u2013\u2014\u2018-\u201f\u2022\u2026\u2212\u20ac\u20b9]+/g;

/** NFKC: no-break, narrow and thin spaces become spaces, `℃` becomes `°C`, full-width digits digits. */
function normalise(text: string): string {
  return text.replace(UNCHANGED, (run) => run.normalize('NFKC'));
}

/** Normalised text with list markers, heading numbers and line-end breaks inside numbers and words undone. */
export function undoLayout(text: string): string {
  // A newline is put before the text so that every line start is a newline: a pattern that starts with a
  // literal character is found far faster than one that starts with `^` or an alternation.
  return (
    `\n${normalise(text)}`
      // `1.`, `2)`, `(3)` starting a line or list item, and `## 1.2 Heading` numbers.
      .replace(/\n([ \t]*(?:>[ \t]*)*(?:[-*+•][ \t]+)?)(?:\d{1,3}[.)]|\(\d{1,3}\))(?=[ \t])/g, '\n$1')
      .replace(/\n([ \t]*#{1,6}[ \t]+)\d+(?:\.\d+)*\.?(?=[ \t])/g, '\n$1')
      // `(2)` enumerating inside a sentence: "(1) refunds and (2) returns" (the character before is
      // tested here, so that the scan looks for `(` alone).
      .replace(/\(\d{1,2}\)(?=\s+\p{L})/gu, (match, at: number, all: string) =>
        ENUMERATION_AFTER.test(all[at - 1]!) ? '   ' : match,
      )
      // 1,500,\n000 and 1,500,-\n000: a number broken after a group separator.
      .replace(/(\d[,.'’])-?[ \t]*\n[ \t]*(?=\d)/g, '$1')
      // twenty-\nfive keeps its hyphen; hyphen-\nation loses it.
      .replace(/-[ \t]*\n[ \t]*(?=\p{L})/gu, (match, at: number, all: string) =>
        !/\p{L}/u.test(all[at - 1] ?? '')
          ? match
          : TENS_END.test(all.slice(Math.max(0, at - 7), at))
            ? '-'
            : '',
      )
      .slice(1)
  );
}

const ENUMERATION_AFTER = /[\s:;,]/;
