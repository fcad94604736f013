import { currencyAt, scaleAt, unreadScale } from './cldr.js';
import { digitRuns, type Fact } from './fact.js';
import {
  ADVERB_TIME,
  currency,
  currencyOfSubunit,
  PER_AFTER,
  quantity,
  type Reading,
  rateUnit,
  UNIT_AFTER,
  type Unit,
  unitOf,
} from './units.js';

// Numbers written in digits: grouping (1,000 · 1.000 · 1'000 · 10 000 · 1,50,000), decimal point or comma,
// a currency before or after, a sign, a scale (1.5m, $2.5 million, 3bn) and what it counts (%, days, °C).

/**
 * Whether a text writes decimals with a comma, judged from the whole text (as CLDR locales differ by
 * convention, not by number): forms that only one convention can produce (`1.234,56`, `15,5`, `1,234.5`,
 * `3.75`) are counted, and the majority decides. With no evidence, the decimal point.
 */
export function decimalComma(text: string): boolean {
  return decimalConvention(text) === 'comma';
}

/** decimalComma's judgement, undefined where the text gives no evidence either way. */
export function decimalConvention(text: string): 'comma' | 'point' | undefined {
  const comma = count(text, /\d\.\d{3},\d|(?<![\d.,])\d+,\d{1,2}(?![\d,])|\d\.\d{3}\.\d{3}(?!\d)|\d\s?€/g);
  const point = count(text, /\d,\d{3}\.\d|(?<![\d.,])\d+\.\d{1,2}(?![\d.])|\d,\d{3},\d{3}(?!\d)|[$£]\s?\d/g);
  if (comma === 0) return point === 0 ? undefined : 'point';
  return comma > point ? 'comma' : 'point';
}

const count = (text: string, re: RegExp): number => {
  let n = 0;
  for (const _ of text.matchAll(re)) n++;
  return n;
};

const CUR_BEFORE = String.raw`(?:(?:(?<!\p{L})\p{Lu}{1,2})?[$¥£]|[€₹]|(?<!\p{L})(?:USD|EUR|GBP|CAD|AUD|NZD|HKD|SGD|JPY|CHF|INR|Rs\.?|S?Fr\.)\s?)`;
// Letters a figure glued after is part of a word (`COVID19`); scripts without spaces (`売上高は32億`) glue all.
const GLUED = String.raw`\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}`;
const GROUPED = String.raw`\d{1,2}(?:,\d{2})+,\d{3}|\d{1,3}(?<sep>[,.'’ ])\d{3}(?:\k<sep>\d{3})*`;
const SCALE = String.raw`(?:(?<suf>k|K|M|B|bn|mn|m|b|Mio\.?|Mrd\.?|Tsd\.?)(?![\p{L}\p{N}])|\s+(?<word>hundred|thousand|million|billion|trillion)s?(?!\p{L}))`;
const NUMBER = new RegExp(
  String.raw`(?<sign>[-−–]\s?)?(?<cur>${CUR_BEFORE})?(?<sign2>[-−])?(?<![${GLUED}\p{N}_]|[${GLUED}][-–]|\d[.,])` +
    String.raw`(?<int>${GROUPED}|\d+)(?<dec>[.,]\d+)?(?![\d])${SCALE}?`,
  'gu',
);
const NUMBER_AT = new RegExp(NUMBER.source, 'uy');
// The characters a sign or currency before a number can start with, and how far before its digits.
const PREFIX_START = new Set([...'-−–$€£¥₹'].map((c) => c.charCodeAt(0)));
const prefixStart = (code: number) => (code >= 65 && code <= 90) || PREFIX_START.has(code);
const PREFIX_MAX = 8;

/**
 * The matches of NUMBER, found from the runs of digits: a number starts at most a few characters before
 * its first digit, so the pattern is tried only there (the first start that matches, as a scan would).
 */
function numberMatches(text: string): RegExpExecArray[] {
  const out: RegExpExecArray[] = [];
  let end = 0;
  digitRuns(text, (first) => {
    if (first < end) return;
    for (let at = Math.max(end, first - PREFIX_MAX); at <= first; at++) {
      if (at < first && !prefixStart(text.charCodeAt(at))) continue;
      NUMBER_AT.lastIndex = at;
      const m = NUMBER_AT.exec(text);
      if (!m) continue;
      end = at + m[0].length;
      out.push(m);
      break;
    }
  });
  return out;
}
// What the number counts, read where the number ends (one sticky match per number, not a scan).
const UNIT_HERE = new RegExp(UNIT_AFTER, 'uy');
const PER_HERE = new RegExp(PER_AFTER, 'uy');
/** "a 37.5-hour week", "a 5-day week": a hyphenated unit before a time is a rate per that time. */
const PER_COMPOUND = /\s(?<time>day|week|fortnight|month|year)(?![\p{L}\p{N}])/uy;
const SCALES: Record<string, number> = {
  k: 1e3,
  K: 1e3,
  Tsd: 1e3,
  M: 1e6,
  mn: 1e6,
  m: 1e6,
  Mio: 1e6,
  B: 1e9,
  b: 1e9,
  bn: 1e9,
  Mrd: 1e9,
  hundred: 100,
  thousand: 1e3,
  million: 1e6,
  billion: 1e9,
  trillion: 1e12,
  lakh: 1e5,
  crore: 1e7,
};

/**
 * `(1,200)` alone in its brackets is how accounts write a negative figure: read as one (never as +1,200,
 * which would pass "a profit of 1,200"); a year in brackets is a year.
 */
export const accounting = (text: string, start: number, end: number, int: string): boolean =>
  text[start - 1] === '(' && text[end] === ')' && !YEAR_LIKE.test(int) && int.length > 1;

/** Whether the reader takes a word after a figure as its scale (`m`, `bn`, `Mio.`, `billion`). */
export const readsAsScale = (word: string): boolean =>
  word.replace(/\.$/, '') in SCALES || word.replace(/s$/, '') in SCALES;

export interface Parsed {
  start: number;
  end: number;
  raw: string;
  readings: Reading[];
  unit?: Unit;
  scale: number;
  written: string[];
  extra: string[];
  /** Read with no unit and no scale: a range's end may lend it both (`10–20 days`, `1.5 to 2 million`). */
  plain: boolean;
  /** A rate's figure alone ("$3" of "$3 per hour"), read as if the rate were not there. */
  alone?: Reading[];
}

export interface NumberOptions {
  /** Decimal comma convention of the whole text. */
  comma: boolean;
  /** The text gives no evidence of its convention: a figure the two read differently (`1.000`) is left unread. */
  undecided?: boolean;
  /** False for a text not in English: a scale word languages disagree on (`bn`) is then left unread. */
  english?: boolean;
  /** The sentence says a figure fell: an unsigned number may stand for a negative one (not temperatures). */
  flexibleSign?: boolean;
}

const NONE: string[] = [];
const MINUS_AFTER = /[\p{N}%)]\s?$|\p{L}$/u;
const RANGE_BETWEEN = /^\s*(?:[-–—]|to|and|or|through)\s*$/;
const RANGE_STRICT = /^\s*(?:[-–—]|to|through)\s*$/;
/** Four digits that may be a year (1500–2099). */
export const YEAR_LIKE = /^(?:1[5-9]|20)\d\d$/;
/** A sign in words right before the number: "minus 5 °C", "a negative 3% return". */
const SIGN_WORD = /(?:^|[^\p{L}])(?:minus|negative)\s+$/iu;
/** Words that make a figure approximate: it then holds within the rounding it implies. */
export const APPROX_BEFORE =
  /(?:^|[^\p{L}])(?:about|around|approximately|approx\.?|roughly|nearly|almost|some|over|more than|less than|fewer than|under|just over|just under|close to|circa|c\.|an estimated|estimated|upwards of|~|≈|~\s?|≈\s?)\s*(?:[$€£¥₹]|[A-Z]{3}\s?)?$/iu;
const OVER_BEFORE = /(?:over|more than|upwards of)\s*(?:[$€£¥₹]|[A-Z]{3}\s?)?$/i;
const UNDER_BEFORE = /(?:under|less than|fewer than|nearly|almost)\s*(?:[$€£¥₹]|[A-Z]{3}\s?)?$/i;

/**
 * How the words before a figure make it approximate: `over` ("more than 1,000") holds a little above it,
 * `under` ("nearly 2 million", "just under 2.5%") a little below, `true` ("about") either side.
 */
export function approximation(before: string): Reading['approx'] {
  if (!APPROX_BEFORE.test(before)) return undefined;
  return OVER_BEFORE.test(before) ? 'over' : UNDER_BEFORE.test(before) ? 'under' : true;
}

/** The words before `text[at]` that may make a figure there approximate: the 24 characters before it. */
export const textBefore = (text: string, at: number): string => text.slice(Math.max(0, at - 24), at);

/** Reads every number in digits; returns the facts and the text with those spans blanked. */
export function readNumbers(text: string, o: NumberOptions): { facts: Fact[]; text: string } {
  const parsed = parseNumbers(text, o);
  return factsOf(text, parsed, o);
}

/** Every number in digits where it stands, with its readings (for those that ask where, as the extractive answer). */
export function parseNumbers(text: string, o: NumberOptions): Parsed[] {
  const parsed: Parsed[] = [];
  for (const m of numberMatches(text)) {
    const g = m.groups!;
    // A scale or currency in the words of another language, from CLDR: `3,2 Mrd. €`, `2 milliards d'euros`.
    let at = m.index + m[0].length;
    // A scale word that means another scale in another language (French `billion`, 10¹²) is read only in English.
    const scaleWritten = (g.suf ?? g.word)?.toLowerCase();
    if (scaleWritten && o.english === false && unreadScale(scaleWritten.replace(/\.$/, ''))) continue;
    const world = g.suf || g.word ? undefined : scaleAt(text, at);
    // A scale word languages disagree on (bn, tn) is read as English reads it in English text; any
    // other leaves the figure unread rather than read at its face value.
    // In English, a unit the reader knows by that symbol (`500 m`) is read as that unit.
    if (world && world.value === undefined) {
      const written = text.slice(at, at + world.length).trim();
      UNIT_HERE.lastIndex = at;
      if (o.english === false) continue;
      if (readsAsScale(written) && written.length > 1)
        world.value = SCALES[written.replace(/\.$/, '')] ?? SCALES[written.replace(/s$/, '')];
      else if (!UNIT_HERE.test(text)) continue;
    }
    if (world?.value) at += world.length;
    UNIT_HERE.lastIndex = at;
    let unitText = UNIT_HERE.exec(text)?.[0];
    const worldCurrency = unitText || g.cur ? undefined : currencyAt(text, at);
    if (worldCurrency?.value) unitText = text.slice(at, at + worldCurrency.length);
    let end = at + (unitText?.length ?? 0);
    PER_HERE.lastIndex = end;
    let per = PER_HERE.exec(text);
    if (!per && unitText?.startsWith('-')) {
      PER_COMPOUND.lastIndex = end;
      per = PER_COMPOUND.exec(text);
    }
    if (per) end += per[0].length;
    const after = unitText?.trim();
    const euroAfter = after === '€';
    const digits = readDigits(g.int!, g.sep, g.dec, euroAfter || o.comma);
    if (!digits || (digits.ambiguous && o.undecided && !euroAfter)) continue;
    // "95p" is pence, and "1080p" is not: both readings (the pence also in pounds, below).
    const pence = unitText?.trim() === 'p' ? unitOf(undefined, 'pence') : undefined;
    let unit = worldCurrency?.value ? currency(worldCurrency.value) : unitOf(g.cur, unitText);
    // A year takes no symbol the table does not know ("in 2024 EU rules", "the 1990s").
    if (
      unit &&
      YEAR_LIKE.test(g.int!) &&
      !g.dec &&
      (unit.cls.startsWith('w:') || /^\s?[a-z]$/.test(unitText ?? ''))
    )
      unit = undefined;
    const suffix = g.suf?.replace('.', '');
    // A dash after a number is a range (10–20), after a letter a hyphen (COVID-19); else a minus.
    const before = textBefore(text, m.index);
    const negative =
      (g.sign && !MINUS_AFTER.test(text.slice(Math.max(0, m.index - 2), m.index))) ||
      g.sign2 ||
      (!g.sign && SIGN_WORD.test(before)) ||
      accounting(text, m.index, end, g.int!);
    const value = negative ? digits.value * -1 : digits.value;
    const approx = approximation(before);
    const places = g.dec ? g.dec.length - 1 : 0;
    let readings: Reading[];
    let scale = 1;
    if (suffix === 'm' && !g.cur && !g.dec) {
      // `15m` is 15 million or 15 metres/minutes: both readings.
      readings = [
        { value: value * 1e6, unit, step: 1e6, approx },
        { value, unit: unitOf(undefined, 'm'), step: 1, approx },
      ];
    } else if (suffix === 'b' && !g.cur) {
      readings = [{ value, unit, step: 10 ** -places, approx }];
    } else {
      scale = SCALES[suffix ?? g.word ?? ''] ?? world?.value ?? 1;
      readings = [{ value: value * scale, unit, step: 10 ** -places * scale, approx }];
    }
    // "800 pounds" is money or weight.
    if (unit?.cls === 'cur:GBP' && /^\s+pounds?$/i.test(unitText ?? ''))
      readings.push({ ...readings[0]!, unit: unitOf(undefined, 'lb') });
    if (pence) readings.push({ ...readings[0]!, unit: pence });
    for (const whole of currencyOfSubunit(pence ?? unit)) {
      const r = readings[0]!;
      readings.push({ ...r, value: r.value / 100, unit: whole, step: (r.step ?? 1) / 100 });
    }
    const alone = per ? readings : undefined;
    if (per) {
      const to = (per.groups!.time ?? ADVERB_TIME[per.groups!.adverb ?? ''] ?? per.groups!.word)!;
      readings = readings.map((r) => ({ ...r, unit: rateUnit(r.unit, to) }));
    }
    parsed.push({
      start: m.index,
      end,
      raw: text.slice(m.index, end),
      readings,
      unit,
      scale,
      // Signed, so that `(1,200)` or `-1,200` as written never holds a positive 1,200.
      written: digits.ambiguous ? [negative ? `-${g.int}` : g.int!] : NONE,
      // 3.10 as written, so that "the 3.10 release" holds a source's "Python 3.10".
      extra:
        g.dec?.startsWith('.') && !unit && !suffix && !g.word && !world?.value
          ? [`vw:${g.int}${g.dec}`]
          : NONE,
      plain: !unit && scale === 1 && !suffix && !per,
      ...(alone ? { alone } : {}),
    });
  }
  return parsed;
}

/**
 * The unit is written before the figure ("€3", "USD 3"), so a scale after the range's end may be the
 * whole range's ("€3–4 billion"). A unit written after it closes the quantity: "12% to 4.5 million"
 * is a change to a figure, not a range of percentages or of millions.
 */
const unitBefore = (p: Parsed) => /\p{N}$/u.test(p.raw);

/** Not "in 2000 to 1.8 million": a year, or an end that the other's scale would put far from it. */
const lendsScale = (p: Parsed, next: Parsed) =>
  !YEAR_LIKE.test(p.raw) &&
  p.readings.every((r) => Math.abs(r.value * next.scale) <= 100 * Math.abs(next.readings[0]?.value ?? 0));

function factsOf(text: string, parsed: Parsed[], o: NumberOptions): { facts: Fact[]; text: string } {
  const facts: Fact[] = [];
  for (let i = 0; i < parsed.length; i++) {
    const p = parsed[i]!;
    let readings = p.readings;
    const next = parsed[i + 1];
    // A range's parts share a unit and a scale ("10–20 days", "€3–4 billion", its dash perhaps read as
    // the second's sign): a part that borrows one
    // is read with it only, not also as a bare number — but "50 or $1,000" may pair unlike figures, so
    // there the borrowed reading is one more.
    const between = next ? text.slice(p.end, next.start) + (/^[-−–]/.test(next.raw) ? '–' : '') : '';
    const ranged = next && RANGE_BETWEEN.test(between);
    const keep = (borrowed: Reading[]) =>
      RANGE_STRICT.test(between) ? borrowed : [...readings, ...borrowed];
    if (ranged && p.plain && !next.plain && lendsScale(p, next))
      readings = keep(
        p.readings.map((r) => ({
          ...r,
          value: r.value * next.scale,
          unit: next.unit,
          step: (r.step ?? 1) * next.scale,
        })),
      );
    else if (ranged && p.unit && !next.unit && next.scale !== 1 && p.scale === 1 && unitBefore(p))
      readings = keep(
        p.readings.map((r) => ({ ...r, value: r.value * next.scale, step: (r.step ?? 1) * next.scale })),
      );
    // "2019–21": a year range's end written with two digits is a year of the same century.
    const previousYear = parsed[i - 1];
    if (
      previousYear &&
      /^\d\d$/.test(p.raw.replace(/^[-−–]/, '')) &&
      YEAR_LIKE.test(previousYear.raw) &&
      RANGE_STRICT.test(text.slice(previousYear.end, p.start) + (/^[-−–]/.test(p.raw) ? '–' : ''))
    ) {
      const year = Math.floor(Number(previousYear.raw) / 100) * 100 + Math.abs(p.readings[0]!.value);
      if (year > Number(previousYear.raw)) readings = [...readings, { value: year, step: 1 }];
    }
    const previous = parsed[i - 1];
    const before = previous ? text.slice(previous.end, p.start) + (/^[-−–]/.test(p.raw) ? '–' : '') : '';
    if (previous?.unit && !p.unit && (p.plain || unitBefore(previous)) && RANGE_STRICT.test(before))
      readings = readings.map((r) => ({ ...r, unit: previous.unit }));
    if (o.flexibleSign && !p.unit?.cls.startsWith('deg')) {
      const unsigned = readings;
      readings = [...unsigned];
      for (const r of unsigned) if (r.value > 0) readings.push({ ...r, value: -r.value });
    }
    // "2 hours 30 minutes", "1 h 30 min", "5 ft 10 in", "83 hours 38 minutes and 56 seconds": one
    // quantity, in the smallest unit.
    let joined = next && compound(p, inchesAfterFeet(p, next, text), text.slice(p.end, next.start));
    if (joined) {
      let last = next!;
      for (let k = parsed[i + 2]; k; k = parsed[i + 2]) {
        const more = compound(
          { ...last, readings: [joined], unit: joined.unit },
          k,
          text.slice(last.end, k.start),
        );
        if (!more) break;
        [joined, last] = [more, k];
        i++;
      }
      facts.push(quantity(text.slice(p.start, last.end), [joined]));
      i++;
      continue;
    }
    const written =
      o.flexibleSign && p.written.length ? [...p.written, ...p.written.map((w) => `-${w}`)] : p.written;
    const fact = quantity(p.raw, readings, written, p.extra);
    if (!p.alone) {
      facts.push(fact);
      continue;
    }
    // A source that gives the figure with no rate at all does not contradict the rate.
    const alone = quantity(p.raw, p.alone);
    const needs = [...fact.needs, ...alone.needs];
    // Only a rate per a unit the table knows is strict: "per and" may be no rate at all.
    if (!/\/w:/.test(p.readings[0]!.unit?.cls ?? ''))
      facts.push({ ...fact, needs, rate: true, alone: alone.gives, aloneNear: alone.near });
    else
      facts.push({
        ...fact,
        gives: [...fact.gives, ...alone.gives],
        needs,
        near: [...(fact.near ?? []), ...(alone.near ?? [])],
      });
  }
  if (parsed.length === 0) return { facts, text };
  const parts: string[] = [];
  let at = 0;
  for (const p of parsed) {
    parts.push(text.slice(at, p.start), blank(p.end - p.start));
    at = p.end;
  }
  parts.push(text.slice(at));
  return { facts, text: parts.join('') };
}

/** `5 ft 11 in`: after feet, a bare figure followed by `in` (a word too, so never read alone) is inches. */
function inchesAfterFeet(feet: Parsed, next: Parsed, text: string): Parsed {
  if (
    !next.plain ||
    feet.unit?.measure?.dim !== 'length' ||
    !/^\s?in\b/.test(text.slice(next.end, next.end + 4))
  )
    return next;
  if (unitOf(undefined, 'ft')?.measure?.factor !== feet.unit.measure.factor) return next;
  const inch = unitOf(undefined, 'inch');
  return { ...next, unit: inch, readings: next.readings.map((r) => ({ ...r, unit: inch })) };
}

/** Two parts of one quantity: the same dimension, a larger unit then a smaller, nothing but "and" between. */
function compound(a: Parsed, b: Parsed, between: string): Reading | undefined {
  const [ma, mb] = [a.unit?.measure, b.unit?.measure];
  if (!ma || !mb || ma.dim !== mb.dim || ma.offset || mb.factor >= ma.factor) return undefined;
  if (a.readings.length !== 1 || b.readings.length !== 1 || !/^\s*(?:,\s*)?(?:and\s+)?$/.test(between))
    return undefined;
  const [ra, rb] = [a.readings[0]!, b.readings[0]!];
  if (ra.value < 0 || rb.value < 0) return undefined;
  return { value: (ra.value * ma.factor) / mb.factor + rb.value, unit: b.unit, step: rb.step };
}

const blanks: string[] = [];
/** Spaces of a length, made once per length. */
const blank = (n: number): string => (blanks[n] ??= ' '.repeat(n));

/**
 * The value of a run of digits with its separators. Unambiguous forms read the same in every convention
 * (`1.234,56`, `1,234.56`, `1'000`, `1,50,000`, `15,5`); `1,000` and `1.000` follow the text's
 * convention and are also keyed as written, so the same form in a source always matches.
 */
function readDigits(
  int: string,
  sep: string | undefined,
  dec: string | undefined,
  comma: boolean,
): { value: number; ambiguous: boolean } | undefined {
  const decSep = dec?.[0];
  const decDigits = dec?.slice(1) ?? '';
  const indian = sep === undefined && int.includes(',') && /^\d{1,2}(,\d{2})+,\d{3}$/.test(int);
  if (indian || sep === ' ' || sep === "'" || sep === '’') {
    const whole = int.replace(/[^\d]/g, '');
    if (indian && decSep === ',') return undefined;
    return { value: Number(`${whole}${dec ? `.${decDigits}` : ''}`), ambiguous: false };
  }
  if (sep === ',' || sep === '.') {
    if (decSep === sep) return undefined; // 1,000,5: not one number
    const whole = Number(int.split(sep).join(''));
    if (dec) return { value: Number(`${whole}.${decDigits}`), ambiguous: false };
    const groups = int.split(sep).length - 1;
    const asDecimal = Number(int.replace(sep, '.'));
    if (groups > 1) return { value: whole, ambiguous: false };
    if (int.startsWith('0')) return { value: asDecimal, ambiguous: false };
    // One group of three: a thousands separator, or a decimal with three places.
    const decimalHere = sep === (comma ? ',' : '.');
    return { value: decimalHere ? asDecimal : whole, ambiguous: true };
  }
  return { value: Number(`${int}${dec ? `.${decDigits}` : ''}`), ambiguous: false };
}
