import { canonical, type Fact, type FactKind } from './fact.js';

// What a number counts: a currency, a percentage, a duration, a temperature or a measure. Each unit has a
// class that a source states and the classes an answer's unit accepts (a bare `$` accepts any dollar;
// `USD` accepts `USD` and a bare `$`, never `CAD`). Durations also convert (two weeks = 14 days).

export interface Unit {
  cls: string;
  accepts: string[];
  kind: FactKind;
  /** A common measure it converts to: seconds for durations, months for months and years. */
  norm?: { cls: string; factor: number };
}

/** One reading of a number: its value and what it counts. */
export interface Reading {
  value: number;
  unit?: Unit;
}

const DOLLARS = ['USD', 'CAD', 'AUD', 'NZD', 'HKD', 'SGD'];
const currency = (code: string): Unit =>
  code === '$'
    ? { cls: 'cur:$', accepts: ['cur:$', ...DOLLARS.map((c) => `cur:${c}`)], kind: 'amount' }
    : {
        cls: `cur:${code}`,
        accepts: [`cur:${code}`, ...(DOLLARS.includes(code) ? ['cur:$'] : [])],
        kind: 'amount',
      };

const CURRENCY_NAMES: Record<string, string> = {
  $: '$',
  us$: 'USD',
  c$: 'CAD',
  ca$: 'CAD',
  a$: 'AUD',
  au$: 'AUD',
  nz$: 'NZD',
  hk$: 'HKD',
  s$: 'SGD',
  '€': 'EUR',
  '£': 'GBP',
  '¥': 'JPY',
  '₹': 'INR',
  rs: 'INR',
  'rs.': 'INR',
  'fr.': 'CHF',
  sfr: 'CHF',
  'sfr.': 'CHF',
  dollar: '$',
  'us dollar': 'USD',
  'canadian dollar': 'CAD',
  'australian dollar': 'AUD',
  euro: 'EUR',
  pound: 'GBP',
  franc: 'CHF',
  rupee: 'INR',
  yen: 'JPY',
};

const SECONDS: Record<string, number> = {
  second: 1,
  sec: 1,
  minute: 60,
  min: 60,
  hour: 3600,
  hr: 3600,
  day: 86400,
  week: 604800,
};
const MONTHS: Record<string, number> = { month: 1, year: 12 };

/** The unit named by a currency before the number and/or the words after it, if any. */
export function unitOf(before: string | undefined, after: string | undefined): Unit | undefined {
  if (!before && !after) return undefined;
  // Keyed as normalised, so the cache holds one entry per unit however it is spaced.
  const key = `${before?.trim() ?? ''}|${after?.trim().replace(/\s+/g, ' ') ?? ''}`;
  let unit = units.get(key);
  if (unit === undefined && !units.has(key)) {
    unit = readUnit(before, after);
    units.set(key, unit);
  }
  return unit;
}

const units = new Map<string, Unit | undefined>();

function readUnit(before: string | undefined, after: string | undefined): Unit | undefined {
  const cur = before?.trim();
  if (cur) {
    const code = CURRENCY_NAMES[cur.toLowerCase()] ?? cur.toUpperCase();
    return currency(code);
  }
  const a = after?.trim().replace(/\s+/g, ' ');
  if (!a) return undefined;
  const lower = a.toLowerCase();
  if (lower === '%' || /^(per ?cent|percent|pct)$/.test(lower)) return simple('pct', 'percent');
  if (/^(percentage points?|pp)$/.test(lower)) return simple('pp', 'percent');
  if (/^°/.test(a) || lower.startsWith('degree')) {
    const scale = /(c|celsius)$/.test(lower) ? 'degC' : /(f|fahrenheit)$/.test(lower) ? 'degF' : 'deg';
    return {
      cls: scale,
      accepts: scale === 'deg' ? ['deg', 'degC', 'degF'] : [scale, 'deg'],
      kind: 'measure',
    };
  }
  if (/^[A-Z]{3}$/.test(a) || a === '€') return currency(CURRENCY_NAMES[a] ?? a);
  const word = lower.replace(/^(business|working|calendar) /, '').replace(/s$/, '');
  if (word !== lower.replace(/s$/, '')) return simple(`dur:${word}`, 'duration'); // business days: no conversion
  if (word in SECONDS)
    return { ...simple(`dur:${word}`, 'duration'), norm: { cls: 's', factor: SECONDS[word]! } };
  if (word in MONTHS)
    return { ...simple(`dur:${word}`, 'duration'), norm: { cls: 'mo', factor: MONTHS[word]! } };
  if (word in CURRENCY_NAMES) return currency(CURRENCY_NAMES[word]!);
  if (word === 'cent') return simple('cent', 'amount');
  return simple(word.replace(/^kilomet(er|re)$/, 'km').replace(/^kilogram$/, 'kg'), 'measure');
}

const simple = (cls: string, kind: FactKind): Unit => ({ cls, accepts: [cls], kind });

/**
 * Words after a number that say what it counts (shared by digits and number words). Each word ends in
 * `(?!\w)`, which is `\b` after a letter: written so, the pattern compiles several times faster (a `\b`
 * in this alternation cost a process's first check about 8 ms per pattern built from it).
 */
export const UNIT_AFTER = String.raw`(?:\s?%|\s?(?:per\s?cent|percent|pct)(?!\w)|\s?(?:percentage\s+points?|pp)(?!\w)|\s?°\s?[CF](?!\w)|\s+degrees?(?:\s+(?:Celsius|Fahrenheit|C|F)(?!\w))?|\s?(?:€|(?:EUR|USD|GBP|CHF|CAD|AUD|NZD|JPY|INR)(?!\p{L}))|\s+(?:(?:US|Canadian|Australian)\s+)?(?:dollars?|euros?|pounds?|francs?|rupees?|yen|cents?)(?!\w)|\s+(?:(?:business|working|calendar)\s+)?(?:seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?)(?!\w)|\s?(?:km|kilomet(?:er|re)s?|miles?|kg|kilograms?|lbs?|GB|MB|TB|GHz|MHz|kWh|MW|GW)(?!\w))`;

/**
 * The fact for a number read one or more ways (alternatives: `15m` is 15 million or 15 metres). A source
 * stating it gives every reading; an answer stating it holds when any reading is in a cited source: the
 * same value with an accepted unit, the same value with no unit at all, or (a unitless answer number) the
 * same value in any unit. `written` are the digits as written, for forms whose reading is ambiguous
 * (`1.000`), compared like values; `extra` are keys both given and needed (`vw:3.10`).
 */
export function quantity(
  raw: string,
  readings: Reading[],
  written: string[] = [],
  extra: string[] = [],
): Fact {
  // Most numbers have one reading: their keys are made once per value and unit and shared (never mutated).
  if (readings.length === 1 && written.length === 0 && extra.length === 0) {
    const { value, unit } = readings[0]!;
    const key = `${value}|${unit?.cls ?? ''}|${unit?.norm ? 1 : 0}`;
    let keys = single.get(key);
    if (!keys) {
      if (single.size > 50_000) single.clear();
      keys = quantityKeys(readings, written, extra);
      single.set(key, keys);
    }
    return { kind: keys.kind, raw: raw.trim(), gives: keys.gives, needs: keys.needs };
  }
  const { kind, gives, needs } = quantityKeys(readings, written, extra);
  return { kind, raw: raw.trim(), gives, needs };
}

const single = new Map<string, Pick<Fact, 'kind' | 'gives' | 'needs'>>();

function quantityKeys(
  readings: Reading[],
  written: string[],
  extra: string[],
): Pick<Fact, 'kind' | 'gives' | 'needs'> {
  const gives = new Set<string>(extra);
  const needs = new Set<string>(extra);
  const add = (n: string, u: string, b: string, v: string, unit: Unit | undefined) => {
    gives.add(`${n}:${v}`);
    if (!unit) {
      gives.add(`${b}:${v}`);
      needs.add(`${n}:${v}`);
      return;
    }
    gives.add(`${u}:${unit.cls}:${v}`);
    needs.add(`${b}:${v}`);
    for (const a of unit.accepts) needs.add(`${u}:${a}:${v}`);
  };
  for (const { value, unit } of readings) {
    add('n', 'u', 'b', canonical(value), unit);
    for (const w of written) add('w', 'wu', 'wb', w, unit);
    if (unit?.norm) {
      const key = `u:${unit.norm.cls}:${canonical(value * unit.norm.factor)}`;
      gives.add(key);
      needs.add(key);
    }
  }
  const kind = readings.find((r) => r.unit)?.unit?.kind ?? 'number';
  return { kind, gives: [...gives], needs: [...needs] };
}
