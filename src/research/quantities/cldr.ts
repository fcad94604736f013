import tables from './cldr.json' with { type: 'json' };

// The words of the world's number formats, from ICU's CLDR data (scripts/cldr-tables.mjs derives
// cldr.json through Intl): scale words (Mrd., milliards, mil millones, lakh, 億), currency names and
// symbols (Euro, złotych, zł, 円), unit names (Kilometer, godzin) and time-zone abbreviations (CET, MESZ).
// A word that stands for several things across languages (bn, kr, $) is listed as ambiguous, never read.

export interface Found<T> {
  /** How many characters of the text, from where it was asked, the word took (spaces before it included). */
  length: number;
  /** What it stands for; undefined when languages disagree (an ambiguous word: see cldr.json). */
  value: T | undefined;
}

/**
 * A table of cldr.json looked up in place, as parsed: making a Map of its thousands of names would cost
 * more, on a run's first source, than all the look-ups it would speed.
 */
function table<T>(...objects: Record<string, T>[]) {
  return {
    has: (key: string) => objects.some((o) => Object.hasOwn(o, key)),
    get: (key: string): T | undefined => {
      for (const o of objects) if (Object.hasOwn(o, key)) return o[key];
      return undefined;
    },
    keys: () => objects.flatMap((o) => Object.keys(o)),
  };
}

const scales = table<number>(tables.scales);
const ambiguousScales = table<unknown>(tables.ambiguousScales);
const currencies = table<string>(tables.currencies);
const ambiguousCurrencies = table<unknown>(tables.ambiguousCurrencies);
const units = table<unknown>(tables.units, tables.ambiguousUnits);
const zones = new Map(Object.entries(tables.zones));

/** The first word of every scale and currency name (lower case, without a stop), and the connectors. */
const FIRST_WORDS = new Set(tables.firstWords);
const FIRST_WORD = /[\p{L}\p{M}]+/uy;

// Up to three words after a figure: letters with their marks, a stop or an apostrophe inside ("d’euros").
const WORDS = /^ ?((?:[\p{L}\p{M}$€£¥₩₹₽₺₴₪₫฿¢][\p{L}\p{M}.'’]*)(?: [\p{L}\p{M}][\p{L}\p{M}.'’]*){0,2})/u;
const CONNECTOR = /^ (?:de|d'|d’|di|del|of) ?/u;

/** The longest word or words at `text[at]` (after at most one space) that `table` holds. */
function lookup<T>(
  text: string,
  at: number,
  has: (w: string) => T | 'ambiguous' | undefined,
): Found<T> | undefined {
  // Most figures are followed by a word no table holds: its first word tells, before anything is sliced.
  FIRST_WORD.lastIndex = text[at] === ' ' ? at + 1 : at;
  const first = FIRST_WORD.exec(text)?.[0];
  if (
    first &&
    /^\p{Script=Latin}/u.test(first) &&
    !FIRST_WORDS.has(first.toLowerCase()) &&
    !first.includes("'")
  )
    return undefined;
  const m = WORDS.exec(text.slice(at, at + 48));
  if (!m) return undefined;
  const space = m[0].length - m[1]!.length;
  const words = m[1]!.split(' ');
  for (let n = words.length; n > 0; n--) {
    const phrase = words.slice(0, n).join(' ');
    // A trailing stop may end the sentence: the word is tried with it and without; where both are words
    // and they differ (es `mil` a thousand, `mil.` millions), it is ambiguous.
    const found = [phrase, ...(phrase.endsWith('.') ? [phrase.slice(0, -1)] : [])]
      .map((candidate) => ({ candidate, value: has(candidate.toLowerCase()) }))
      .filter((f) => f.value !== undefined);
    if (found.length > 0) {
      const value = found.every((f) => f.value === found[0]!.value) ? found[0]!.value : 'ambiguous';
      return { length: space + found[0]!.candidate.length, value: value === 'ambiguous' ? undefined : value };
    }
  }
  // Scripts written without spaces (32億, 1万2千人): the word is the first characters of the run.
  const run = words[0]!;
  if (!/^\p{Script=Latin}/u.test(run))
    for (let k = Math.min(run.length - 1, 3); k > 0; k--) {
      const found = has(run.slice(0, k).toLowerCase());
      if (found !== undefined) return { length: space + k, value: found === 'ambiguous' ? undefined : found };
    }
  return undefined;
}

/** A scale word right after a figure: `Mrd.`, `milliards`, `mil millones`, `lakh`, `億`. */
export const scaleAt = (text: string, at: number): Found<number> | undefined =>
  // A unit's symbol in some language (pt's `mi` for millions is English's miles) is not read as a scale.
  lookup(text, at, (w) =>
    ambiguousScales.has(w) || (units.has(w) && scales.has(w)) ? 'ambiguous' : scales.get(w),
  );

/** A currency's name or symbol right after a figure or its scale (`Euro`, `d’euros`, `złotych`, `円`). */
export function currencyAt(text: string, at: number): Found<string> | undefined {
  const connector = CONNECTOR.exec(text.slice(at, at + 6))?.[0].length ?? 0;
  const found = lookup(text, at + connector, (w) =>
    ambiguousCurrencies.has(w) ? 'ambiguous' : currencies.get(w),
  );
  return found && { ...found, length: found.length + connector };
}

/** The currency a name or symbol (lower case) stands for in every language that has it (`cn¥`: CNY). */
export const currencyNamed = (name: string): string | undefined => currencies.get(name);

/** Whether a word (lower case) names a scale or a currency in some language. */
export const namesScaleOrCurrency = (word: string): boolean =>
  scales.has(word) || ambiguousScales.has(word) || currencies.has(word) || ambiguousCurrencies.has(word);

/** Whether a word (lower case) is a scale in some language that the number reader does not read as one. */
export const unreadScale = (word: string): boolean =>
  ambiguousScales.has(word) || (scales.has(word) && units.has(word));

/** Whether a word (lower case) names a unit in some language. */
export const namesUnit = (word: string): boolean => units.has(word);

/** The offsets from UTC, in minutes, a time-zone abbreviation stands for (CET: 60 and 120 in summer). */
export const zoneOffsets = (abbreviation: string): number[] | undefined => zones.get(abbreviation);

const months = new Map(Object.entries(tables.months));

/** A date's order in some language, as a pattern; `fields` names its groups in order (y, m, d). */
export interface DateForm {
  pattern: RegExp;
  fields: ('y' | 'm' | 'd')[];
}

let dateForms: DateForm[] | undefined;
let monthHint: RegExp | undefined;

/**
 * The forms of a date in CLDR's languages (`14. Februar 2025`, `14 de febrero de 2025`, `2025年2月14日`),
 * made when first asked. A form with no year takes only month names of four letters or more: `des`,
 * `sie` and `mar` are words too.
 */
export function worldDateForms(): DateForm[] {
  if (dateForms) return dateForms;
  const names = [...months.keys()].sort((a, b) => b.length - a.length).map(escapeRe);
  const long = names.filter((n) => n.replace(/\\/g, '').length >= 4);
  // The longest forms first: `14 février 2025` is read whole before `14 février` could be.
  dateForms = [...tables.dates]
    .sort((a, b) => b.length - a.length)
    .map((template) => {
      const fields: DateForm['fields'] = [];
      const withYear = template.includes('{y}');
      const source = template
        .split(/(\{[yMmd]\})/)
        .map((part) => {
          if (part === '{y}' || part === '{m}' || part === '{d}') {
            fields.push(part[1] as 'y' | 'm' | 'd');
            return part === '{y}' ? '(\\d{4})(?!\\d)' : '(\\d{1,2})(?!\\d)';
          }
          if (part === '{M}') {
            fields.push('m');
            return `(${(withYear ? names : long).join('|')})\\.?(?![\\p{L}])`;
          }
          return escapeRe(part).replace(/ /g, '\\s*');
        })
        .join('');
      return { pattern: new RegExp(`(?<![\\p{L}\\d])${source}`, 'giu'), fields };
    });
  return dateForms;
}

/** English's month names and their short forms, which the date reader reads itself. */
const ENGLISH_MONTH =
  /^(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)$/;

/**
 * Whether a text may hold a date in another language's form: a month's name of four letters or more that
 * English does not share, or 年, 월 (a hint: the forms then decide). One pattern of the names, in lower
 * case and capitalised, without the case-insensitive flag: V8 scans such a list of literals quickly.
 */
export function mayHoldWorldDate(text: string): boolean {
  monthHint ??= new RegExp(
    `[年월日]|${[...months.keys()]
      .filter((name) => name.length >= 4 && !ENGLISH_MONTH.test(name))
      .flatMap((name) => [name, name[0]!.toUpperCase() + name.slice(1)])
      .sort((a, b) => b.length - a.length)
      .map(escapeRe)
      .join('|')}`,
    'u',
  );
  return monthHint.test(text);
}

/** A month's number from its name in any language (`février`, `lutego`, `Mär.`); undefined if none. */
export const monthNamed = (name: string): number | undefined =>
  months.get(name.toLowerCase().replace(/\.$/, ''));

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// The scale characters of scripts written without spaces (万, 億, 兆, 만, 억, 조, 천), with their values.
const CJK = new Map(
  scales
    .keys()
    .filter((w) => w.length === 1 && !/\p{Script=Latin}/u.test(w))
    .map((w) => [w, scales.get(w)!]),
);
const MARKS = [...CJK.keys()].join('');
const CJK_RUN = new RegExp(`\\d+(?:\\.\\d+)?(?:\\s?[${MARKS}]+\\s?\\d*(?:\\.\\d+)?)+`, 'gu');

/**
 * A number written in parts with scale characters (`1兆2340億`, `3億2000万`, `1조 2천억`), written as one
 * number in digits: below 10,000 a scale multiplies its part (`2천` 2,000), from 10,000 it closes a
 * section (`2천억` 2,000 × 10⁸); sections add up when each is smaller than the last.
 */
export function composeScaled(text: string): string {
  if (CJK.size === 0) return text;
  return text.replace(CJK_RUN, (run) => {
    let [total, section, last] = [0, 0, Number.POSITIVE_INFINITY];
    const parts = [
      ...run.matchAll(new RegExp(`(\\d+(?:\\.\\d+)?)?\\s?([${MARKS}])|(\\d+(?:\\.\\d+)?)`, 'gu')),
    ];
    if (parts.length < 2 && !parts[0]?.[2]) return run;
    for (const [, digits, mark, tail] of parts) {
      if (tail !== undefined) {
        section += Number(tail);
        continue;
      }
      const n = digits === undefined ? 0 : Number(digits);
      const scale = CJK.get(mark!)!;
      if (scale < 1e4) section += (n || 1) * scale;
      else {
        if (scale >= last) return run;
        total += (section + n) * scale;
        [section, last] = [0, scale];
      }
    }
    total += section;
    return Number.isSafeInteger(total) && parts.length > 1 ? `${total}${/\s$/.test(run) ? ' ' : ''}` : run;
  });
}
