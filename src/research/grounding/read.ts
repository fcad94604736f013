import { readDates } from './dates.js';
import type { Fact } from './fact.js';
import { decimalComma, readNumbers } from './numbers.js';
import { readPeriods } from './periods.js';
import { readNumberWords } from './words.js';

// Reading a text's facts, once: its layout is undone first (list markers and heading numbers are not
// facts; a number or word broken across a line end is joined), then each family reads and blanks its
// spans, most specific first: dates, periods and versions, numbers in digits, numbers in words.

export interface ReadOptions {
  /** The text's decimal convention; judged from this text when not given. */
  comma?: boolean;
  /** See NumberOptions.flexibleSign. */
  flexibleSign?: boolean;
}

export function readFacts(input: string, o: ReadOptions = {}): Fact[] {
  const text = figureWindows(undoLayout(input));
  const comma = o.comma ?? decimalComma(text);
  const dates = readDates(text);
  const periods = readPeriods(dates.text);
  const numbers = readNumbers(periods.text, { comma, flexibleSign: o.flexibleSign });
  return [...dates.facts, ...periods.facts, ...numbers.facts, ...readNumberWords(numbers.text)];
}

const TENS_WORD = 'twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety';
// Number words (any case) and the words of periods: where a figure may be written without a digit.
const WORD_TRIGGER =
  /\b(?:[Zz]ero|[Oo]ne|[Tt](?:wo|hree|en|welve|hirteen|wenty|hirty|housand|hird|enth|welfth)|[Ff](?:our|ive|ourteen|ifteen|orty|ifty|irst|ourth|ifth)|[Ss](?:ix|even|ixteen|eventeen|ixty|eventy|econd|ixth|eventh)|[Ee](?:ight|leven|ighteen|ighty|ighth|leventh)|[Nn]ine(?:teen|ty)?|[Nn]inth|[Hh](?:undred|alf)|[Mm]illion|[Bb]illion|[Dd]ozen|[Qq]uarter)\b/g;
const BEFORE = 48;
const AFTER = 64;

/**
 * The parts of a text that can hold a figure: a window around every digit and number word, cut at spaces,
 * joined by blank lines. Prose between figures is never scanned by the readers, which keeps a long
 * source's reading to one quick pass for digits and one for number words.
 */
function figureWindows(text: string): string {
  const spans: [number, number][] = [];
  const add = (start: number, end: number) => {
    const last = spans.at(-1);
    if (last && start - BEFORE <= last[1]) last[1] = Math.max(last[1], end + AFTER);
    else spans.push([start - BEFORE, end + AFTER]);
  };
  const digits = [...text.matchAll(/\d+/g)].map((m) => [m.index, m.index + m[0].length] as const);
  const words = [...text.matchAll(WORD_TRIGGER)].map((m) => [m.index, m.index + m[0].length] as const);
  const all = words.length ? [...digits, ...words].sort((a, b) => a[0] - b[0]) : digits;
  for (const [start, end] of all) add(start, end);
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

/** Normalised text with list markers, heading numbers and line-end breaks inside numbers and words undone. */
export function undoLayout(text: string): string {
  return (
    text
      .normalize('NFKC')
      // `1.`, `2)`, `(3)` starting a line or list item, and `## 1.2 Heading` numbers.
      .replace(/^([ \t]*(?:>[ \t]*)*(?:[-*+•][ \t]+)?)(?:\d{1,3}[.)]|\(\d{1,3}\))(?=[ \t]+\S)/gm, '$1')
      .replace(/^([ \t]*#{1,6}[ \t]+)\d+(?:\.\d+)*\.?(?=[ \t])/gm, '$1')
      // `(2)` enumerating inside a sentence: "(1) refunds and (2) returns".
      .replace(/(^|[\s:;,])\(\d{1,2}\)(?=\s+\p{L})/gmu, '$1   ')
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
  );
}
