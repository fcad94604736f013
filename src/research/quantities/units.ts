import { currencyNamed } from './cldr.js';
import { canonical, type Fact, type FactKind, type Near } from './fact.js';
import { LOWER_SYMBOLS, MEASURE_NAMES, MEASURE_SYMBOLS, type Measure, measureOf } from './measures.js';

// What a number counts: a currency, a percentage, a duration, a temperature or a measure. Each unit has a
// class that a source states and the classes an answer's unit accepts (a bare `$` accepts any dollar;
// `USD` accepts `USD` and a bare `$`, never `CAD`). Durations also convert (two weeks = 14 days).

export interface Unit {
  cls: string;
  accepts: string[];
  kind: FactKind;
  /** Its dimension and factor to the dimension's base unit, where it converts (see measures.ts). */
  measure?: Measure;
}

/** One reading of a number: its value and what it counts. */
export interface Reading {
  value: number;
  unit?: Unit;
  /** The place of the last digit written, in the value's unit: 0.1 for "4.8 km", 1e5 for "2.5 million". */
  step?: number;
  /** Written as approximate: "about 40%" (true), "more than 1,000" (over), "nearly 2 million" (under). */
  approx?: boolean | 'over' | 'under';
}

const DOLLARS = ['USD', 'CAD', 'AUD', 'NZD', 'HKD', 'SGD'];
const CURRENCY_CODES = new Set([
  ...DOLLARS,
  'EUR',
  'GBP',
  'CHF',
  'JPY',
  'INR',
  'CNY',
  'SEK',
  'NOK',
  'DKK',
  'PLN',
  'CZK',
  'ZAR',
  'BRL',
  'MXN',
  'KRW',
]);
/** A currency by its ISO code (or `$`): it accepts its own code, and a dollar also a bare `$`. */
export const currency = (code: string): Unit =>
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

/** The currencies a hundredth of which a unit is ("87 cents" is also $0.87 or €0.87, "145.9 pence" £1.459). */
export const currencyOfSubunit = (unit: Unit | undefined): Unit[] =>
  unit?.cls === 'cent' ? [currency('$'), currency('EUR')] : unit?.cls === 'pence' ? [currency('GBP')] : [];

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

const NOT_UNITS = new Set(
  'GMT UTC Z EST EDT CST CDT MST MDT PST PDT CET CEST EET EEST WET WEST BST IST JST KST AEST AEDT NZST AD BC BCE CE'.split(
    ' ',
  ),
);

function readUnit(before: string | undefined, after: string | undefined): Unit | undefined {
  const cur = before?.trim();
  if (cur) {
    const code = CURRENCY_NAMES[cur.toLowerCase()] ?? currencyNamed(cur.toLowerCase()) ?? cur.toUpperCase();
    return currency(code);
  }
  const a = after?.trim().replace(/\s+/g, ' ');
  if (!a) return undefined;
  const lower = a.toLowerCase();
  if (lower === '%' || /^(per ?cent|percent|pct)$/.test(lower))
    return { ...simple('pct', 'percent'), measure: { dim: 'pct', factor: 1 } };
  // Per mille and per ten thousand are shares on the per cent's scale (4.5‰ is 0.45%).
  if (/^(‰|per ?mill?e)$/.test(lower))
    return { ...simple('permille', 'percent'), measure: { dim: 'pct', factor: 0.1 } };
  if (lower === '‱') return { ...simple('permyriad', 'percent'), measure: { dim: 'pct', factor: 0.01 } };
  if (/^(percentage points?|pp)$/.test(lower))
    return { ...simple('pp', 'percent'), measure: { dim: 'pp', factor: 1 } };
  if (/^(basis points?|bp)$/.test(lower))
    return { ...simple('bp', 'percent'), measure: { dim: 'pp', factor: 0.01 } };
  if (/^°/.test(a) || lower.startsWith('degree')) {
    const scale = /(c|celsius)$/.test(lower) ? 'degC' : /(f|fahrenheit)$/.test(lower) ? 'degF' : 'deg';
    const measure = scale === 'deg' ? undefined : measureOf(scale === 'degC' ? '°C' : '°F');
    return {
      cls: scale,
      accepts: scale === 'deg' ? ['deg', 'degC', 'degF'] : [scale, 'deg'],
      kind: 'measure',
      ...(measure ? { measure } : {}),
    };
  }
  if (/^[A-Z]{3}$/.test(a) && CURRENCY_CODES.has(a)) return currency(a);
  if (a === '€') return currency('EUR');
  const hyphened = a.startsWith('-');
  const b = a.replace(/^-/, '');
  const lowerB = b.toLowerCase();
  const word = lowerB.replace(/^(business|working|calendar)[\s-]/, '').replace(/s$/, '');
  // Business days do not convert: how many calendar days they are depends on the week.
  if (word !== lowerB.replace(/s$/, '')) return simple(`dur:${word}`, 'duration');
  if (word in CURRENCY_NAMES && !hyphened) {
    // "800 pounds" is money or weight: both readings are the caller's (see readNumbers), money here.
    return currency(CURRENCY_NAMES[word]!);
  }
  if (word === 'cent') return simple('cent', 'amount');
  if (word === 'pence' || word === 'penny' || word === 'pennie') return simple('pence', 'amount');
  const measure = measureOf(b);
  if (measure) {
    const kind: FactKind =
      measure.dim === 'time' || measure.dim === 'months'
        ? 'duration'
        : measure.dim === 'pct' || measure.dim === 'pp'
          ? 'percent'
          : 'measure';
    const cls = `m:${measure.dim}:${canonical(measure.factor)}:${canonical(measure.offset ?? 0)}`;
    return { cls, accepts: [cls], kind, measure };
  }
  // Time zones and eras say when, not what a number counts.
  if (NOT_UNITS.has(b)) return undefined;
  // A unit the table does not know is compared as written (40 Nm is not 40 kN, 12 dB not 12 dBm).
  return simple(`w:${b.replace(/(?<=[A-Z]{2})s$/, '')}`, 'measure');
}

const simple = (cls: string, kind: FactKind): Unit => ({ cls, accepts: [cls], kind });

/** Time units by name, singular: what a rate is per, and what "a" or "per" counts one of. */
export const TIME_WORDS = 'second|minute|hour|day|week|fortnight|month|year|decade';
const TIME_PER = `${TIME_WORDS}|sec|s|min|hr|h|d|wk|mo|yr|annum`;
const PER_SHORT: Record<string, string> = { d: 'day', wk: 'week', mo: 'month', yr: 'year', annum: 'year' };
/**
 * What a figure is per, right after it and its unit: a time ("per hour", "a day", "/h", "every week"), or
 * after "per" or "/" a word ("per person", "/kg"), which is compared as written when the table does not
 * know it. "a year ago" and "per the contract" are not rates. One space apart: blanked text is not read across.
 */
export const PER_AFTER = String.raw`(?:\s?\/\s?|\s(?:per|a|an|each|every)\s)(?<time>${TIME_PER})(?![\p{L}\p{N}])(?!\s+(?:ago|later|earlier|before|after|since|on|from)(?!\p{L}))|(?:\s?\/\s?|\sper\s)(?!(?:the|a|an|this|that|these|those|our|their|its|his|her|my|your|cent|se|per|one|two|three|four|five|six|seven|eight|nine|ten|hundred|thousand|million)(?!\p{L}))(?<word>\p{Ll}[\p{Ll}²³]*)(?![\p{L}\p{N}])|\s(?<adverb>hourly|daily|weekly|fortnightly|monthly|quarterly|yearly|annually)(?![\p{L}\p{N}])`;

/** "£412.80 annually" is £412.80 a year. */
export const ADVERB_TIME: Record<string, string> = {
  hourly: 'hour',
  daily: 'day',
  weekly: 'week',
  fortnightly: 'fortnight',
  monthly: 'month',
  quarterly: 'quarter',
  yearly: 'year',
  annually: 'year',
};

/**
 * A unit per a time or a thing: its class and what it accepts gain the denominator, so "$3 per hour" is
 * not "$3 a day". A measure per a time converts (40 L/min = 2,400 L/h); money only per a month or year.
 */
export function rateUnit(unit: Unit | undefined, per: string): Unit {
  const name = per.toLowerCase();
  const time = measureOf(PER_SHORT[name] ?? (per.length === 1 ? per : name));
  const den = time ? `${time.dim}:${canonical(time.factor)}` : `w:${name.replace(/s$/, '')}`;
  const base = unit ?? { cls: '', accepts: [''], kind: 'number' as FactKind };
  const rate: Unit = {
    cls: `${base.cls}/${den}`,
    accepts: base.accepts.map((a) => `${a}/${den}`),
    kind: base.kind,
  };
  const m = unit?.measure;
  if (time && m && !m.offset) {
    const dim = `${m.dim}/${time.dim}`;
    rate.measure = { dim: PER_TIME_NAMED[dim] ?? dim, factor: m.factor / time.factor };
  }
  // Money per month converts to money per year (£1,150 a month is £13,800 a year); per hour, day or
  // week it does not: how many of them a wage or a price is paid for depends on the week.
  if (time?.dim === 'months' && unit?.cls.startsWith('cur:'))
    rate.measure = { dim: `${unit.cls}/months`, factor: 1 / time.factor };
  return rate;
}

/**
 * A measure per a time that has a name of its own, in the named unit's base (so 17 km/s compares with
 * 61,200 km/h, 2 GB/min with 33 MB/s, 3 kWh per hour with 3 kW).
 */
const PER_TIME_NAMED: Record<string, string> = {
  'length/time': 'speed',
  'data/time': 'rate',
  'energy/time': 'power',
};

/** A share's per cent, a reading of its own: "three-fifths" and "3/5" hold "60%", "a third" "33%". */
export const FRACTION_PERCENT: Unit = {
  cls: 'frac',
  accepts: ['frac', 'pct'],
  kind: 'percent',
  measure: { dim: 'pct', factor: 1 },
};

/** A word's first letter in either case: a name starting a heading or a table cell is still a name. */
const either = (words: string): string =>
  words.replace(/(^|\|)([a-z])/g, (_, bar: string, c: string) => `${bar}[${c}${c.toUpperCase()}]`);

const TWO_LETTER_WORDS =
  'In|On|At|To|Of|Or|An|As|By|If|Is|It|No|So|Up|Us|We|He|My|Do|Go|Me|Be|Am|Mr|Ms|Dr|St';

/**
 * Words after a number that say what it counts (shared by digits and number words): per cent and points,
 * temperatures, currencies, business days, the measures of measures.ts (durations among them) by name,
 * also hyphenated ("a 48-hour window"), or by symbol, and a symbol the table does not know (TEU, Nm,
 * dBm), kept as written.
 * Each word ends in `(?!\w)`, which is `\b` after a letter: written so, the pattern compiles faster.
 */
export const UNIT_AFTER = String.raw`(?:\s?%|\s?(?:per\s?cent|percent|pct)(?!\w)|\s?(?:‰|‱|per\s?mill?e)(?!\w)|\s?(?:percentage\s+points?|basis\s+points?|pp|bp)(?!\w)|\s?°\s?[CF](?!\w)|\s+${either('degrees?')}(?:\s+(?:Celsius|Fahrenheit|C|F)(?!\w))?|\s?(?:€|(?:EUR|USD|GBP|CHF|CAD|AUD|NZD|JPY|INR)(?!\p{L}))|\s+(?:(?:US|Canadian|Australian)\s+)?(?:${either('dollars?|euros?|pounds?|francs?|rupees?|yen|cents?|pence|penny|pennies')})(?!\w)|(?:\s+|-)(?:${either('business|working|calendar')})[\s-]+(?:${either('seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|fortnights?|months?|years?|decades?')})(?!\w)|(?:\s+|-)(?:${either(MEASURE_NAMES)})(?!\p{L})|[\s-]?(?:${MEASURE_SYMBOLS})(?![\p{L}\p{N}])|\s?[shtgmWJLVN](?![\p{L}\p{N}'’-])|\s?p(?![\p{L}\p{N}'’-]|\.m)|\s?[x×](?![\p{L}\p{N}])|\s?(?:[A-Z]{2,5}s?|[a-zµ]{1,2}[A-Z][A-Za-z]{0,3}|(?!(?:${TWO_LETTER_WORDS})(?!\p{L}))[A-Z][a-z]|${LOWER_SYMBOLS.join('|')})(?:\/[A-Za-z²³]{1,4})?(?![\p{L}\p{N}]))`;

/**
 * The fact for a number read one or more ways (alternatives: `15m` is 15 million or 15 metres). A source
 * stating it gives every reading; an answer stating it holds when any reading is in a cited source: the
 * same value with an accepted unit, the same value with no unit at all, or (a unitless answer number) the
 * same value in any unit — by key, exactly. Beside the keys, `near` places each reading on its
 * dimension's scale, for what keys cannot compare: another unit of the dimension, within the answer's
 * own precision, and an approximate answer ("about 40%"), within the rounding it implies.
 * `written` are the digits as written, for forms whose reading is ambiguous (`1.000`), compared like
 * values; `extra` are keys both given and needed (`vw:3.10`).
 */
export function quantity(
  raw: string,
  readings: Reading[],
  written: string[] = [],
  extra: string[] = [],
): Fact {
  // Most numbers have one reading: their keys are made once per value and unit and shared (never mutated).
  if (readings.length === 1 && written.length === 0 && extra.length === 0) {
    const { value, unit, step, approx } = readings[0]!;
    const key = `${value}|${unit?.cls ?? ''}|${step ?? ''}|${approx ?? ''}`;
    let keys = single.get(key);
    if (!keys) {
      if (single.size > 50_000) single.clear();
      keys = quantityKeys(readings, written, extra);
      single.set(key, keys);
    }
    return { kind: keys.kind, raw: raw.trim(), gives: keys.gives, needs: keys.needs, near: keys.near };
  }
  const { kind, gives, needs, near } = quantityKeys(readings, written, extra);
  return { kind, raw: raw.trim(), gives, needs, near };
}

const single = new Map<string, Pick<Fact, 'kind' | 'gives' | 'needs' | 'near'>>();

/** Conversions hold within half the answer's last digit, and never more than this share of the value. */
const CONVERSION_SHARE = 0.05;
/** An approximate figure holds within the rounding of its last significant digit, up to this share. */
const APPROX_SHARE = 0.1;

function quantityKeys(
  readings: Reading[],
  written: string[],
  extra: string[],
): Pick<Fact, 'kind' | 'gives' | 'needs' | 'near'> {
  const gives = new Set<string>(extra);
  const needs = new Set<string>(extra);
  const near: Near[] = [];
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
  for (const r of readings) {
    const { value, unit } = r;
    add('n', 'u', 'b', canonical(value), unit);
    for (const w of written) add('w', 'wu', 'wb', w, unit);
    near.push(...nearOf(r));
  }
  const kind = readings.find((r) => r.unit)?.unit?.kind ?? 'number';
  return { kind, gives: [...gives], needs: [...needs], near };
}

/**
 * A reading on its scales: every number as written (`n`), a bare one also as `b`, a currency on its own
 * scale, a measure in its dimension's base unit. An answer's reading carries its tolerance: a measure's
 * is for another unit of its dimension (the same unit compares by key); an approximate one's is for any.
 */
function nearOf({ value, unit, step = 1, approx }: Reading): Near[] {
  const cls = unit?.cls ?? '';
  const out: Near[] = [];
  const size = Math.abs(value);
  // An approximate figure's reach either side: its rounding, and on a bound's open side up to a share.
  const rounding = approx ? Math.max(step / 2, Math.min(significantStep(value) / 2, size * APPROX_SHARE)) : 0;
  const open = Math.max(rounding, size * APPROX_SHARE);
  // A bound holds nothing past it: "more than 2 km" is not 1,987 m, "just under 60%" not 60.2%.
  const below = approx === 'under' ? open : approx === 'over' ? 0 : rounding;
  const above = approx === 'over' ? open : approx === 'under' ? 0 : rounding;
  const near = (dim: string, v: number, factor = 1, asked?: true): Near => ({
    dim,
    value: v,
    cls,
    below: below * factor,
    above: above * factor,
    approx: Boolean(approx),
    ...(asked ? { asked } : {}),
  });
  if (!unit) {
    out.push(near('n', value), near('b', value));
    return out;
  }
  // A source's figure with a unit is still a number as written (for a bare answer's lookup); an
  // approximate answer's with a unit may hold against a bare figure in a source.
  out.push({ dim: 'n', value, cls });
  if (approx) out.push(near('b', value, 1, true));
  // An amount on each currency scale it is accepted on; money per a month or year also converts as a
  // measure does, below (see rateUnit).
  if (unit.cls.startsWith('cur:')) for (const a of unit.accepts) out.push(near(a, value));
  const m = unit.measure;
  if (!m) return out;
  // A rate or fee quoted in basis points is that per cent (35 bp is 0.35%): a level, on the per cent scale
  // too; other points stay points (a rise of 2 points is not a rise of 2%).
  if (unit.cls === 'bp') {
    const tol = Math.max((step / 2) * 0.01, 1e-9);
    out.push({ dim: 'pct', value: value * 0.01, cls, below: tol, above: tol });
  }
  const base = value * m.factor + (m.offset ?? 0);
  if (approx) {
    out.push(near(m.dim, base, m.factor));
    // Months and days are apart (30 days is not a month), but said roughly they meet: "about three
    // months" is 90 days, "some 60 days" two months.
    if (m.dim === 'months') out.push(near('time', base * MONTH_SECONDS, m.factor * MONTH_SECONDS));
    else if (m.dim === 'time' && base >= 7 * 86_400)
      out.push(near('months', base / MONTH_SECONDS, m.factor / MONTH_SECONDS));
    return out;
  }
  // Another unit of the dimension: within half the last digit, at most a share (none for an offset scale).
  const tol = m.offset
    ? (step / 2) * m.factor
    : Math.min((step / 2) * m.factor, size * m.factor * CONVERSION_SHARE);
  out.push({ dim: m.dim, value: base, cls, below: tol, above: tol });
  return out;
}

/** An average month (a Gregorian year's twelfth), in seconds. */
const MONTH_SECONDS = (365.2425 / 12) * 86_400;

/** The place of a number's last significant digit: 10 for 40, 100 for 1,500, 0.1 for 2.5. */
function significantStep(value: number): number {
  if (value === 0) return 1;
  const digits = String(Math.abs(value)).replace('.', '').replace(/^0+/, '').replace(/0+$/, '');
  const magnitude = Math.floor(Math.log10(Math.abs(value)));
  return 10 ** (magnitude - Math.max(0, digits.length - 1));
}
