import { mayHoldWorldDate, monthNamed, worldDateForms, zoneOffsets } from './cldr.js';
import { type Fact, keyed, pad2, readAll } from './fact.js';
import { quantity, unitOf } from './units.js';

const MINUTES = unitOf(undefined, 'minutes');

// Dates and times in the forms writers use: `2026-03-01`, `March 1, 2026`, `1 March 2026`, `Sept. 30`,
// `01.03.2026` (day first), `01/03/2026` (either order unless a part is over 12), ranges (`March 1–15,
// 2026`, `1–15 March`), months (`March 2026`), and clock times (`5 pm`, `17:00`, `9.30am`).

const MONTH =
  '(Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\\b\\.?';
/** What every month's name starts with, as MONTH reads it (capitalised). */
const MONTH_NAME = /Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec/;
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const monthNumber = (name: string) => MONTHS.indexOf(name.slice(0, 3).toLowerCase()) + 1;
const DAY = '(\\d{1,2})(?:st|nd|rd|th)?(?!\\d)';
const YEAR = '(?:,?\\s+(\\d{4})(?!\\d))?';
const TO = '\\s*(?:[-–—]|to|through|until|till)\\s*';

const MONTH_RANGE = new RegExp(`\\b${MONTH}\\s+${DAY}${TO}(?:${MONTH}\\s+)?${DAY}${YEAR}`, 'g');
const DAY_RANGE = new RegExp(`\\b${DAY}(?:\\s+${MONTH})?${TO}${DAY}\\s+(?:of\\s+)?${MONTH}${YEAR}`, 'g');
const ISO_DATE = /(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?!\d)/g;
const DOTTED_DATE = /(\d{1,2})\.(\d{1,2})\.(\d{4}|\d{2})(?![\d.]\d)/g;
const NUMERIC_DATE = /(\d{1,2})([/-])(\d{1,2})\2(\d{4}|\d{2})(?![\d/-])/g;
const MONTH_DAY = new RegExp(`\\b${MONTH}\\s+${DAY}${YEAR}`, 'g');
const DAY_MONTH = new RegExp(`\\b${DAY}\\s+(?:of\\s+)?${MONTH}${YEAR}`, 'g');
const MONTH_YEAR = new RegExp(`\\b${MONTH},?\\s+(?:of\\s+)?(\\d{4})(?!\\d)`, 'g');
const AM_PM = /(\d{1,2})(?:[:.](\d{2}))?\s?([ap])\.?\s?m\b\.?/gi;
const CLOCK = /(\d{1,2})[:h](\d{2})(?![\d:])(?:\s?(?:h|hrs|Uhr)\b)?/g;

const fullYear = (y: string) => (y.length === 2 ? 2000 + Number(y) : Number(y));
const valid = (m: number, d: number) => m >= 1 && m <= 12 && d >= 1 && d <= 31;
const iso = (y: number, m: number, d: number) => `${y}-${pad2(m)}-${pad2(d)}`;

/** What stating a day gives a source: the day, its month and year, and the day without the year. */
function dayKeys(y: number | undefined, m: number, d: number, prefix = 'd'): string[] {
  const md = `md:${pad2(m)}-${pad2(d)}`;
  if (y === undefined) return [md];
  const keys = [`${prefix}:${iso(y, m, d)}`, md, `m:${y}-${pad2(m)}`, `n:${y}`];
  if (m === 6 || m === 7) keys.push(`mid:${y}`);
  return keys;
}

function day(raw: string, year: string | undefined, m: number, d: number): Fact[] | undefined {
  if (!valid(m, d)) return undefined;
  const y = year === undefined ? undefined : fullYear(year);
  const needs = y === undefined ? [`md:${pad2(m)}-${pad2(d)}`] : [`d:${iso(y, m, d)}`, `d2:${iso(y, m, d)}`];
  return [keyed('date', raw, dayKeys(y, m, d), needs)];
}

/** A range gives every day in it (so `March 1–15` holds March 15); an answer's range needs both ends. */
function range(raw: string, year: string | undefined, m1: number, d1: number, m2: number, d2: number) {
  if (!valid(m1, d1) || !valid(m2, d2)) return undefined;
  const y = year === undefined ? undefined : fullYear(year);
  const gives = new Set<string>();
  const start = Date.UTC(y ?? 2001, m1 - 1, d1);
  const end = Date.UTC(y ?? 2001, m2 - 1, d2);
  if (end < start || end - start > 92 * 86400000) return undefined;
  for (let t = start; t <= end; t += 86400000) {
    const date = new Date(t);
    for (const k of dayKeys(y, date.getUTCMonth() + 1, date.getUTCDate())) gives.add(k);
  }
  const [first, last] = [day(raw, year, m1, d1)!, day(raw, year, m2, d2)!];
  return [keyed('date', raw, [...gives], first[0]!.needs), keyed('date', raw, [], last[0]!.needs)];
}

/** Reads every date and time; returns the facts and the text with those spans blanked. */
export function readDates(input: string): { facts: Fact[]; text: string } {
  const facts: Fact[] = [];
  let text = input;
  const pass = (re: RegExp, read: (m: RegExpExecArray) => Fact[] | undefined) => {
    const r = readAll(text, re, read, re === AM_PM || re === CLOCK ? /[\d:.,]/ : /[\d.,/-]/);
    facts.push(...r.facts);
    text = r.text;
  };
  // Five of the patterns need a month's name: a text without one (most claims) skips them.
  const months = MONTH_NAME.test(input);
  if (months) {
    pass(MONTH_RANGE, (m) =>
      range(m[0], m[5], monthNumber(m[1]!), Number(m[2]), monthNumber(m[3] ?? m[1]!), Number(m[4])),
    );
    pass(DAY_RANGE, (m) =>
      range(m[0], m[5], monthNumber(m[2] ?? m[4]!), Number(m[1]), monthNumber(m[4]!), Number(m[3])),
    );
  }
  pass(ISO_DATE, (m) => day(m[0], m[1], Number(m[2]), Number(m[3])));
  pass(DOTTED_DATE, (m) => day(m[0], m[3], Number(m[2]), Number(m[1])));
  pass(NUMERIC_DATE, (m) => numericDate(m[0], Number(m[1]), Number(m[3]), fullYear(m[4]!)));
  if (months) {
    pass(MONTH_DAY, (m) => day(m[0], m[3], monthNumber(m[1]!), Number(m[2])));
    pass(DAY_MONTH, (m) => day(m[0], m[3], monthNumber(m[2]!), Number(m[1])));
    pass(MONTH_YEAR, (m) => {
      const [month, y] = [monthNumber(m[1]!), Number(m[2])];
      const gives = [`m:${y}-${pad2(month)}`, `n:${y}`, ...(month === 6 || month === 7 ? [`mid:${y}`] : [])];
      return [keyed('date', m[0], gives, [`m:${y}-${pad2(month)}`])];
    });
  }
  // Dates in the orders and month names of other languages, from CLDR (see cldr.ts).
  if (mayHoldWorldDate(input))
    for (const form of worldDateForms())
      pass(form.pattern, (m) => {
        const at = (f: 'y' | 'm' | 'd') => m[form.fields.indexOf(f) + 1];
        const [y, d, name] = [at('y'), at('d'), at('m')!];
        const month = /^\d+$/.test(name) ? Number(name) : monthNamed(name);
        if (!month) return undefined;
        if (d !== undefined) return day(m[0], y, month, Number(d));
        if (y === undefined) return undefined;
        const gives = [
          `m:${y}-${pad2(month)}`,
          `n:${y}`,
          ...(month === 6 || month === 7 ? [`mid:${y}`] : []),
        ];
        return [keyed('date', m[0], gives, [`m:${y}-${pad2(month)}`])];
      });
  const zone = (m: RegExpExecArray) =>
    zoneAfter(text.slice(m.index + m[0].length, m.index + m[0].length + 16));
  pass(AM_PM, (m) => {
    const hour = Number(m[1]);
    if (hour < 1 || hour > 12) return undefined;
    return time(m[0], (hour % 12) + (m[3]!.toLowerCase() === 'p' ? 12 : 0), Number(m[2] ?? 0), zone(m));
  });
  pass(CLOCK, (m) => {
    const read = time(m[0], Number(m[1]), Number(m[2]), zone(m));
    // `1h45` is a time of day or a duration, as `2h05` in a race is: one fact that either holds.
    if (!read || !/^\d{1,2}h\d\d$/.test(m[0])) return read;
    const duration = quantity(m[0], [{ value: Number(m[1]) * 60 + Number(m[2]), unit: MINUTES, step: 1 }]);
    const [clock] = read;
    return [
      {
        ...clock!,
        gives: [...clock!.gives, ...duration.gives],
        needs: [...clock!.needs, ...duration.needs],
        near: duration.near,
      },
    ];
  });
  return { facts, text };
}

/**
 * `01/03/2026`: when one part is over 12 the order is plain; otherwise either reading may be meant. An
 * answer's such date holds against a source that names either day, or that writes the same digits in
 * the same order — never against the same digits in the other order.
 */
function numericDate(raw: string, a: number, b: number, y: number): Fact[] | undefined {
  const readings: [number, number][] = [];
  if (valid(a, b)) readings.push([a, b]);
  if (a !== b && valid(b, a)) readings.push([b, a]);
  if (readings.length === 0) return undefined;
  if (readings.length === 1) return day(raw, String(y), readings[0]![0], readings[0]![1]);
  const written = `dw:${pad2(a)}/${pad2(b)}/${y}`;
  const gives = [written, ...readings.flatMap(([m, d]) => dayKeys(y, m, d, 'd2'))];
  const needs = [written, ...readings.map(([m, d]) => `d:${iso(y, m, d)}`)];
  return [keyed('date', raw, gives, needs)];
}

/**
 * A time gives its hour as a number too (`5 pm` holds "at 5"); `9:30` in an answer holds either half.
 * With a zone (`14:00 CET`, `2 pm ET`, `09:00 UTC+2`) it is also an instant: a source's gives that
 * instant of the day in UTC for each offset the zone may have, and an answer's needs one of them — or the
 * same clock time in a source that names no zone, which cannot contradict it.
 */
function time(raw: string, hour: number, minute: number, offsets?: number[]): Fact[] | undefined {
  if (hour > 23 || minute > 59) return undefined;
  const key = `t:${hour}:${pad2(minute)}`;
  const h12 = `t12:${hour % 12 || 12}:${pad2(minute)}`;
  const plain = !/[ap]\.?\s?m/i.test(raw);
  const gives = [key, h12, `n:${hour % 12 || 12}`, `n:${hour}`];
  const needs = plain && hour <= 12 ? [key, h12] : [key];
  if (!offsets) return [keyed('time', raw, [...gives, `tn:${hour}:${pad2(minute)}`], needs)];
  const instants = offsets.map((o) => `tz:${(((hour * 60 + minute - o) % 1440) + 1440) % 1440}`);
  return [keyed('time', raw, [...gives, ...instants], [...instants, `tn:${hour}:${pad2(minute)}`])];
}

/** The offsets (minutes east of UTC) of a zone written after a time: `CET`, `(ET)`, `UTC+2`, `GMT-05:30`. */
function zoneAfter(after: string): number[] | undefined {
  const m =
    /^\s?\(?(?:(UTC|GMT|Z)(?:\s?([+−-])\s?(\d{1,2})(?::?(\d{2}))?)?|(\p{Lu}{2,5}))\)?(?![\p{L}\d])/u.exec(
      after,
    );
  if (!m) return undefined;
  if (m[5]) return zoneOffsets(m[5]);
  if (!m[2]) return [0];
  return [(m[2] === '+' ? 1 : -1) * (Number(m[3]) * 60 + Number(m[4] ?? 0))];
}
