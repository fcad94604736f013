import { type Fact, readAll } from './fact.js';
import { FRACTION_PERCENT, quantity, type Reading, unitOf } from './units.js';

// Numbers read as one figure: a fraction in digits ("3/4"), a ratio or score ("20:1"), and a time
// taken written h:mm:ss ("2:01:09").

const SLASH = /(\d{1,3})\s?\/\s?(\d{1,3})(?![\d/.,]\d|\d)/g;

/**
 * "3/4" and "24/7": a fraction in digits (a date has a year, and was read before), its value and its
 * per cent, and as written. Returns the facts and the text with them blanked.
 */
export function readSlashFractions(text: string): { facts: Fact[]; text: string } {
  if (!text.includes('/')) return { facts: [], text };
  return readAll(
    text,
    SLASH,
    (m) => {
      const [a, b] = [Number(m[1]), Number(m[2])];
      if (b === 0) return undefined;
      const readings: Reading[] = [{ value: a / b, step: 0.001 }];
      if (a < b) readings.push({ value: (100 * a) / b, unit: FRACTION_PERCENT, step: 1 });
      return [quantity(m[0], readings, [], [`w:${a}/${b}`])];
    },
    /[\d/.,\p{L}]/u,
  );
}

const RATIO = /(\d{1,4})\s?:\s?(\d{1,4})(?![\d:]|[.,]\d)/g;

/**
 * "20:1", "16:9", a score "3:1": a ratio (clock times were read before), compared whole, so that "25:1"
 * is not held by a source's "20:1" and a "1" elsewhere. Its numbers are given alone too ("20 to 1").
 */
export function readRatios(text: string): { facts: Fact[]; text: string } {
  if (!text.includes(':')) return { facts: [], text };
  return readAll(
    text,
    RATIO,
    (m) => {
      const [a, b] = [quantity(m[1]!, [{ value: Number(m[1]) }]), quantity(m[2]!, [{ value: Number(m[2]) }])];
      const key = `r:${Number(m[1])}:${Number(m[2])}`;
      return [{ kind: 'number', raw: m[0], gives: [key, ...a.gives, ...b.gives], needs: [key] }];
    },
    /[\d:.,\p{L}]/u,
  );
}

const HMS = /(\d{1,3}):([0-5]\d):([0-5]\d)(?:\.(\d{1,3}))?(?![\d:]|[.,]\d)/g;

/**
 * "2:01:09", a race's or a journey's time: hours, minutes and seconds, a duration in seconds (so that
 * "2 h 1 min 9 s" and a difference of two such times in seconds hold), and as written. Read before
 * clock times, which have two parts.
 */
export function readDurations(text: string): { facts: Fact[]; text: string } {
  if (!/:\d\d:/.test(text)) return { facts: [], text };
  return readAll(
    text,
    HMS,
    (m) => {
      const seconds = Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]) + Number(`0.${m[4] ?? 0}`);
      const step = m[4] ? 10 ** -m[4].length : 1;
      return [quantity(m[0], [{ value: seconds, unit: unitOf(undefined, 's'), step }], [], [`w:${m[0]}`])];
    },
    /[\d:.,]/,
  );
}
