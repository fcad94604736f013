import { type Fact, readAll } from './fact.js';
import { FRACTION_PERCENT, quantity, type Reading } from './units.js';

// Two numbers read as one figure: a fraction in digits ("3/4") and a ratio or score ("20:1").

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
