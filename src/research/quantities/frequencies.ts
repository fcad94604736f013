import { canonical, type Fact, keyed, readAll } from './fact.js';
import { ADVERB_TIME as ADVERB } from './units.js';

// How often: "twice daily", "three times a day", "once a week", "every other day", "every 8 hours",
// "every month". Read as a rate per day, so that "twice daily" and "two times a day" are one fact and
// "three times a day" another. The spans are blanked: "every 8 hours" is no duration of 8 hours.

const DAYS: Record<string, number> = {
  hour: 1 / 24,
  day: 1,
  week: 7,
  fortnight: 14,
  month: 365.25 / 12,
  quarter: 365.25 / 4,
  year: 365.25,
};
const SMALL: Record<string, number> = {
  once: 1,
  twice: 2,
  thrice: 3,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  other: 2,
  second: 2,
  third: 3,
};
const UNIT = '(hour|day|week|fortnight|month|quarter|year)s?';
const COUNT =
  '(once|twice|thrice|(?:\\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten|twelve)\\s+times)';
const N = '(\\d{1,3}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|other|second|third)';

const TIMES_PER = new RegExp(`\\b${COUNT}\\s+(?:a|an|per|each|every)\\s+${UNIT}\\b`, 'gi');
const TIMES_ADVERB = new RegExp(`\\b${COUNT}\\s+(${Object.keys(ADVERB).join('|')})\\b`, 'gi');
const EVERY_N = new RegExp(`\\bevery\\s+${N}\\s+${UNIT}\\b`, 'gi');
const EVERY = new RegExp(`\\bevery\\s+${UNIT}\\b`, 'gi');

const count = (word: string): number =>
  SMALL[word.toLowerCase()] ?? Number(word.match(/\d+|\p{L}+/u)?.[0] ?? NaN);
const times = (phrase: string): number => {
  const first = phrase.split(/\s+/)[0]!.toLowerCase();
  return SMALL[first] ?? Number(first);
};

function frequency(raw: string, perDay: number): Fact[] | undefined {
  if (!Number.isFinite(perDay) || perDay <= 0) return undefined;
  const key = `fq:${canonical(Number(perDay.toPrecision(6)))}`;
  return [keyed('frequency', raw, [key], [key])];
}

/** Reads every frequency; returns the facts and the text with their spans blanked. */
export function readFrequencies(input: string): { facts: Fact[]; text: string } {
  const facts: Fact[] = [];
  let text = input;
  if (!/times|once|twice|thrice|every/i.test(text)) return { facts, text };
  for (const [re, read] of [
    [TIMES_PER, (m: RegExpExecArray) => frequency(m[0], times(m[1]!) / DAYS[m[2]!.toLowerCase()]!)],
    [
      TIMES_ADVERB,
      (m: RegExpExecArray) => frequency(m[0], times(m[1]!) / DAYS[ADVERB[m[2]!.toLowerCase()]!]!),
    ],
    [EVERY_N, (m: RegExpExecArray) => frequency(m[0], 1 / (count(m[1]!) * DAYS[m[2]!.toLowerCase()]!))],
    [EVERY, (m: RegExpExecArray) => frequency(m[0], 1 / DAYS[m[1]!.toLowerCase()]!)],
  ] as const) {
    const r = readAll(text, re, read);
    facts.push(...r.facts);
    text = r.text;
  }
  return { facts, text };
}
