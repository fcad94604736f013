import { CITE, HAS_CITE } from './citations.js';
import { proseSentences } from './text.js';

// The grounding check: every number, date and quoted phrase in a sentence that cites sources must appear in
// one of the sources it cites. No model: each source is scanned once into a set of normalised keys
// (`n:1000`, `d:2026-03-01`, …), and each claim of the answer is a set lookup.

export interface Unsupported {
  /** The sentence as written (list markers removed), citations included. */
  sentence: string;
  cites: number[];
  /** What no cited source contains, as written in the sentence. */
  missing: string[];
}

export interface Grounding {
  /** Cited sentences examined. */
  checked: number;
  unsupported: Unsupported[];
}

export interface GroundingSource {
  n: number;
  text: string;
}

interface Fact {
  key: string;
  /** Keys a source also supports when it states this (a full date supports its year). */
  also: string[];
  raw: string;
  /** Only counts in a source: a lone "one" in an answer is mostly a pronoun, "first" an ordinal word. */
  weak?: boolean;
  /** What the number counts, when it says so: a currency (`dollar`, `euro`…), `percent`, `day`, `week`… */
  unit?: string;
}

interface SourceFacts {
  keys: Set<string>;
  /** Normalised text, padded with spaces so that phrases match whole words only; made when first asked. */
  phrases: () => string;
}

export function checkGrounding(answer: string, sources: GroundingSource[]): Grounding {
  const texts = new Map(sources.map((s) => [s.n, s.text]));
  const scanned = new Map<number, SourceFacts>();
  const factsOf = (n: number): SourceFacts => {
    let facts = scanned.get(n);
    if (!facts) {
      facts = sourceFacts(texts.get(n) ?? '');
      scanned.set(n, facts);
    }
    return facts;
  };

  let checked = 0;
  const unsupported: Unsupported[] = [];
  for (const sentence of claimSentences(answer)) {
    const cites = [...new Set([...sentence.matchAll(CITE)].flatMap((m) => m[1]!.split(',').map(Number)))];
    // Citations that name no source are the citation check's to report; those cites have no text here.
    if (!cites.some((n) => texts.has(n))) continue;
    checked++;
    const cited = cites.filter((n) => texts.has(n)).map(factsOf);
    const missing = new Set<string>();
    for (const claim of answerClaims(sentence)) {
      const found = claim.key.startsWith('p:')
        ? cited.some((f) => f.phrases().includes(` ${claim.key.slice(2)} `))
        : cited.some((f) => supports(f, claim));
      if (!found) missing.add(claim.raw);
    }
    if (missing.size > 0) unsupported.push({ sentence, cites, missing: [...missing] });
  }
  return { checked, unsupported };
}

/**
 * The answer's sentences, with list markers and heading numbers removed, outside any "Sources" or
 * "References" section (a source list restates titles, paths and dates that are not claims).
 */
function claimSentences(answer: string): string[] {
  const out: string[] = [];
  let inSourceList = false;
  for (const raw of answer.split('\n')) {
    let line = raw.trim();
    const heading = /^#{1,6}\s+(.*)$/.exec(line);
    const label = !heading && !HAS_CITE.test(line) && /^(\*\*[^*]+\*\*:?|\w[\w ]*:)$/.test(line);
    if (heading || label) {
      const name = (heading?.[1] ?? line).replace(/[*_:]/g, '').trim();
      inSourceList = /^(sources|references|bibliography|works cited)$/i.test(name);
      if (!heading) continue;
      line = heading[1]!.replace(/^\d+(?:\.\d+)*\.?\s+/, '');
    }
    if (inSourceList || /^(sources|references):/i.test(line)) continue;
    line = line.replace(/^(?:>\s*)*(?:[-*+]\s+|\d+[.)]\s+)?/, '');
    out.push(...proseSentences(line));
  }
  return out;
}

function answerClaims(sentence: string): Fact[] {
  let text = sentence
    .normalize('NFKC')
    .replace(CITE, ' ')
    .replace(/\]\([^)\s]*\)/g, ']')
    .replace(/\bhttps?:\/\/\S+/g, ' ');
  const claims: Fact[] = [];
  // Quoted phrases first, so that a number inside a quotation is checked as part of it, not twice.
  text = text.replace(/"([^"\n]+)"|“([^”\n]+)”/g, (match, straight?: string, curly?: string) => {
    const phrase = normalisePhrase(straight ?? curly ?? '');
    if (phrase.split(' ').length < 2) return match;
    claims.push({ key: `p:${phrase}`, also: [], raw: match });
    return blank(match);
  });
  claims.push(...scanFacts(text).filter((f) => !f.weak));
  return claims;
}

/**
 * A source supports a number when it has the value, and, when the answer says what the value counts
 * ($, €, %, days), either the same unit or none at all: `€1,200` is not supported by `USD 1,200`, nor
 * `30 weeks` by `30 days`, but `$200` is by a bare `200`.
 */
function supports(source: SourceFacts, claim: Fact): boolean {
  if (!source.keys.has(claim.key)) return false;
  if (!claim.unit) return true;
  return source.keys.has(`u:${claim.unit}:${claim.key}`) || source.keys.has(`b:${claim.key}`);
}

function sourceFacts(text: string): SourceFacts {
  const keys = new Set<string>();
  for (const fact of scanFacts(text.normalize('NFKC'))) {
    keys.add(fact.key);
    keys.add(fact.unit ? `u:${fact.unit}:${fact.key}` : `b:${fact.key}`);
    for (const k of fact.also) {
      keys.add(k);
      keys.add(`b:${k}`);
    }
  }
  let phrases: string | undefined;
  return { keys, phrases: () => (phrases ??= ` ${normalisePhrase(text)} `) };
}

/** Case, punctuation, quote style and spacing do not matter when comparing quotations. */
function normalisePhrase(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[‘’`´]/g, "'")
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

const blank = (s: string) => ' '.repeat(s.length);
const canonical = (n: number) => (Number.isSafeInteger(n) ? String(n) : String(Number(n.toPrecision(15))));
const pad2 = (n: number) => String(n).padStart(2, '0');

const MONTH =
  '(Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\\b\\.?';
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const monthNumber = (name: string) => MONTHS.indexOf(name.slice(0, 3).toLowerCase()) + 1;

const ISO_DATE = /(?<![\d.,/-])(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?![\d])/g;
const MONTH_DAY = new RegExp(
  `\\b${MONTH}\\s+(\\d{1,2})(?:st|nd|rd|th)?(?!\\d)(?:,?\\s+(\\d{4})(?!\\d))?`,
  'g',
);
const DAY_MONTH = new RegExp(
  `(?<![\\d.,])\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+(?:of\\s+)?${MONTH}(?:,?\\s+(\\d{4})(?!\\d))?`,
  'g',
);
const MONTH_YEAR = new RegExp(`\\b${MONTH},?\\s+(\\d{4})(?!\\d)`, 'g');
const AM_PM = /(?<![\d:.,])(\d{1,2})(?::(\d{2}))?\s?([ap])\.?\s?m\b\.?/gi;
const CLOCK = /(?<![\d:.,])(\d{1,2}):(\d{2})(?![\d:])/g;

const CURRENCY = String.raw`(?:[$€£¥₹]|(?<![\p{L}])(?:USD|EUR|GBP|CAD|AUD|JPY|CHF|INR)\s?)`;
const UNIT = String.raw`\s+(?:(?:business|working|calendar)\s+)?(?:days?|weeks?|months?|years?|hours?|minutes?|seconds?|dollars|euros?|pounds|cents?)\b`;
// A number that stands alone: not part of a word or code (x86, Q3, COVID-19), not the tail of another number.
const NUMBER = new RegExp(
  String.raw`(${CURRENCY}\s?)?(?<![\p{L}\p{N}_])(?<!\p{L}[-–])(?<!\d[.,])(\d{1,3}(?:,\d{3})+(?!\d)|\d+)(\.\d+)?` +
    String.raw`(?:(k|K|M|B|bn|mn|m)(?![\p{L}\p{N}])|\s+(hundred|thousand|million|billion|trillion)\b)?` +
    String.raw`(\s?%|\s+per\s?cent\b)?(${UNIT})?`,
  'gu',
);
const VERSION = /(?<![\p{L}\p{N}.])v?(\d+(?:\.\d+){2,})(?![.,]?\d)/gu;
const QUARTER = /(?<![\p{L}\p{N}])Q([1-4])(?![\p{L}\p{N}])/gu;

/** One name per currency family ($, USD, dollars…) or unit (day, days, calendar days…). */
function unitOf(currency?: string, percent?: string, unit?: string): string | undefined {
  const c = currency?.trim().toUpperCase();
  if (c) {
    if (c === '$' || c === 'USD' || c === 'CAD' || c === 'AUD') return 'dollar';
    if (c === '€' || c === 'EUR') return 'euro';
    if (c === '£' || c === 'GBP') return 'pound';
    if (c === '¥' || c === 'JPY') return 'yen';
    if (c === '₹' || c === 'INR') return 'rupee';
    return c.toLowerCase();
  }
  if (percent) return 'percent';
  const word = unit?.trim().toLowerCase().split(/\s+/).at(-1);
  if (!word) return undefined;
  if (word.startsWith('euro')) return 'euro';
  return word.replace(/s$/, '');
}

const SCALE: Record<string, number> = {
  k: 1e3,
  K: 1e3,
  M: 1e6,
  mn: 1e6,
  B: 1e9,
  bn: 1e9,
  hundred: 100,
  thousand: 1e3,
  million: 1e6,
  billion: 1e9,
  trillion: 1e12,
};

/** Every number, date and time in the text, each with its normalised key; the spans found are blanked. */
function scanFacts(input: string): Fact[] {
  const facts: Fact[] = [];
  let text = input;
  const date = (raw: string, year: string | undefined, month: number, day: number): string => {
    if (month < 1 || month > 12 || day < 1 || day > 31) return raw;
    const md = `md:${pad2(month)}-${pad2(day)}`;
    if (year === undefined) facts.push({ key: md, also: [], raw });
    else
      facts.push({
        key: `d:${year}-${pad2(month)}-${pad2(day)}`,
        also: [md, `m:${year}-${pad2(month)}`, `n:${Number(year)}`],
        raw,
      });
    return blank(raw);
  };
  text = text.replace(ISO_DATE, (raw, y: string, m: string, d: string) => date(raw, y, Number(m), Number(d)));
  text = text.replace(MONTH_DAY, (raw, name: string, d: string, y?: string) =>
    date(raw, y, monthNumber(name), Number(d)),
  );
  text = text.replace(DAY_MONTH, (raw, d: string, name: string, y?: string) =>
    date(raw, y, monthNumber(name), Number(d)),
  );
  text = text.replace(MONTH_YEAR, (raw, name: string, y: string) => {
    facts.push({ key: `m:${y}-${pad2(monthNumber(name))}`, also: [`n:${Number(y)}`], raw });
    return blank(raw);
  });

  const time = (raw: string, hour: number, minute: number): string => {
    if (hour > 23 || minute > 59) return raw;
    facts.push({ key: `t:${hour}:${pad2(minute)}`, also: [`n:${hour % 12 || 12}`, `n:${hour}`], raw });
    return blank(raw);
  };
  text = text.replace(AM_PM, (raw, h: string, m: string | undefined, half: string) => {
    const hour = Number(h);
    if (hour < 1 || hour > 12) return raw;
    return time(raw, (hour % 12) + (half.toLowerCase() === 'p' ? 12 : 0), Number(m ?? 0));
  });
  text = text.replace(CLOCK, (raw, h: string, m: string) => time(raw, Number(h), Number(m)));

  // Version numbers (2.3.1) and quarters (Q3) are facts of their own, not a decimal and a stray digit.
  text = text.replace(VERSION, (raw, version: string) => {
    facts.push({ key: `v:${version}`, also: [], raw });
    return blank(raw);
  });
  text = text.replace(QUARTER, (raw, q: string) => {
    facts.push({ key: `q:${q}`, also: [], raw });
    return blank(raw);
  });

  text = text.replace(
    NUMBER,
    (
      raw,
      currency?: string,
      whole = '',
      fraction = '',
      suffix?: string,
      scaleWord?: string,
      percent?: string,
      unit?: string,
    ) => {
      const mantissa = Number(whole.replace(/,/g, '') + fraction);
      // A lone `m` after an amount of money is millions; elsewhere it is a unit (minutes, metres).
      const scale = SCALE[scaleWord ?? (suffix === 'm' ? (currency ? 'M' : '') : (suffix ?? ''))];
      const value = scale ? mantissa * scale : mantissa;
      facts.push({
        key: `n:${canonical(value)}`,
        also: scale ? [`n:${canonical(mantissa)}`] : [],
        raw: raw.trim(),
        unit: unitOf(currency, percent, unit),
      });
      return blank(raw);
    },
  );
  facts.push(...numberWords(text));
  return facts;
}

const SMALL =
  'zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen'.split(
    ' ',
  );
const TENS: Record<string, number> = {
  twenty: 20,
  thirty: 30,
  forty: 40,
  fifty: 50,
  sixty: 60,
  seventy: 70,
  eighty: 80,
  ninety: 90,
};
const WORD_SCALE: Record<string, number> = {
  dozen: 12,
  hundred: 100,
  thousand: 1e3,
  million: 1e6,
  billion: 1e9,
};
const ORDINALS: Record<string, number> = Object.fromEntries(
  'first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth'
    .split(' ')
    .map((w, i) => [w, i + 1]),
);
// Number words and ordinals, whole words only; "a"/"an" only before a scale word ("a hundred", "a dozen").
const NUMBER_WORD = new RegExp(
  `(?<!\\p{L})(?:an?(?=[\\s-]+(?:${Object.keys(WORD_SCALE).join('|')})(?!\\p{L}))|${[
    ...SMALL,
    ...Object.keys(TENS),
    ...Object.keys(WORD_SCALE),
    ...Object.keys(ORDINALS),
  ].join('|')})(?!\\p{L})`,
  'giu',
);
const UNIT_AFTER = new RegExp(`^${UNIT}`, 'i');

/** "thirty", "twenty-five", "a hundred", "one hundred and five", "two thousand": numbers written out. */
function numberWords(text: string): Fact[] {
  const facts: Fact[] = [];
  let run: { word: string; start: number; end: number }[] = [];
  const flush = () => {
    if (run.length === 0) return;
    const first = run[0]!;
    const last = run.at(-1)!;
    const unit = UNIT_AFTER.exec(text.slice(last.end, last.end + 40))?.[0] ?? '';
    const raw = text.slice(first.start, last.end) + unit;
    const weak = run.length === 1 && first.word === 'one';
    for (const value of wordValues(run.map((t) => t.word)))
      facts.push({ key: `n:${canonical(value)}`, also: [], raw, weak });
    run = [];
  };
  for (const m of text.matchAll(NUMBER_WORD)) {
    const word = m[0].toLowerCase();
    if (word in ORDINALS) {
      flush();
      facts.push({ key: `n:${ORDINALS[word]}`, also: [], raw: m[0], weak: true });
      continue;
    }
    // Words join a run across spaces and hyphens, and across "and" after a scale ("one hundred and five").
    const prev = run.at(-1);
    const gap = prev ? text.slice(prev.end, m.index) : '';
    const joins = prev && (/^[\s-]+$/.test(gap) || (prev.word in WORD_SCALE && /^\s+and\s+$/i.test(gap)));
    if (!joins || word === 'a' || word === 'an') flush();
    run.push({ word, start: m.index, end: m.index + m[0].length });
  }
  flush();
  return facts;
}

/** The values of a run of number words; words that cannot belong to one number start the next. */
function wordValues(words: string[]): number[] {
  const values: number[] = [];
  let total = 0;
  let current = 0;
  let last: 'small' | 'ten' | 'scale' | undefined;
  let started = false;
  const flush = () => {
    if (started) values.push(total + current);
    total = 0;
    current = 0;
    last = undefined;
    started = false;
  };
  for (const w of words) {
    if (w === 'a' || w === 'an') {
      flush();
      current = 1;
    } else if (w in TENS) {
      if (last === 'small' || last === 'ten') flush();
      current += TENS[w]!;
      last = 'ten';
      started = true;
    } else if (SMALL.includes(w)) {
      const v = SMALL.indexOf(w);
      if (last === 'small' || (last === 'ten' && v >= 10)) flush();
      current += v;
      last = 'small';
      started = true;
    } else {
      const scale = WORD_SCALE[w]!;
      if (scale < 1000) current = (current || 1) * scale;
      else {
        total += (current || 1) * scale;
        current = 0;
      }
      last = 'scale';
      started = true;
    }
  }
  flush();
  return values;
}
