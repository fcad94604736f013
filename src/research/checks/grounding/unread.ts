import { namesScaleOrCurrency, namesUnit, unreadScale } from '../../quantities/cldr.js';
import type { Fact } from '../../quantities/fact.js';
import { accounting, readsAsScale } from '../../quantities/numbers.js';
import { unitOf } from '../../quantities/units.js';

// A source's figures the reader could not read fully. The check flags an answer's figure as missing only
// when nothing in the cited source could be it; these are what could. The law, stated once:
//   A source figure is read with certainty when every mark touching it is one the reader knows: a unit,
//   scale, currency or date it read with the figure, punctuation, a sign, or a word that names no
//   quantity in any language CLDR knows (what the figure counts: "vehicles", "Kunden"). Anything else
//   touching it (a symbol, abbreviation, or scale, currency or unit word it did not read, letters glued
//   to its digits, an apostrophe eliding its start, a script it does not read, digits no reader took)
//   leaves the figure unread, and an answer figure whose significant digits it could hold is "not checked".

export interface UnreadFigure {
  /** The source's text as written, for the report of what could not be read (`3,2 Mrd.`). */
  text: string;
  /** Its digit runs as written, without leading zeros (`1h45` → 1, 45; `14.02.2025` → 14, 2, 2025). */
  runs: string[];
  /** The values its digits can stand for, in either decimal convention (`3,2` → 3.2 and 32). */
  values: number[];
  /** A unit read with it that the reader keeps only as written (`kVA`): it compares by SI prefix alone. */
  unit?: string;
}

/**
 * `windows`: the text the digit readers were given; `rest`: the same text with what they read blanked
 * (readText's `windows` and `rest`, the same length).
 */
export function unreadFigures(windows: string, rest: string, english: boolean): UnreadFigure[] {
  const out: UnreadFigure[] = [];
  FIGURE.lastIndex = 0;
  for (let m = FIGURE.exec(windows); m; m = FIGURE.exec(windows)) {
    const [start, figureEnd] = [m.index, m.index + m[0].length];
    // What the readers took with the figure: the span blanked in `rest` around its digits.
    let [from, end] = [start, figureEnd];
    const unreadDigit = /\d/.test(rest.slice(start, figureEnd));
    if (!unreadDigit) {
      for (let p = figureEnd; p < rest.length && rest[p] === ' ' && windows[p] !== '\n'; p++)
        if (windows[p] !== ' ') end = p + 1;
      while (from > 0 && rest[from - 1] === ' ' && windows[from - 1] !== ' ' && windows[from - 1] !== '\n')
        from--;
    }
    const reason = unreadDigit ? 'unread' : doubt(windows, from, end, m[0], english);
    if (!reason) continue;
    const unit = windows.slice(figureEnd, end).trim().split(/\s/)[0]!;
    const after = reason === 'after' ? (windows.slice(end).match(NEXT_TOKEN)?.[0] ?? '') : '';
    const before = reason === 'before' ? windows[from - 1] : '';
    out.push({
      text: `${before}${windows.slice(from, end)}${after}`.trim(),
      runs: m[0].match(/\d+/g)!.map((r) => r.replace(/^0+(?=\d)/, '')),
      values: readingsOf(m[0]).map((r) => r.value),
      ...(opaqueUnit(unit) ? { unit } : {}),
    });
  }
  return out;
}

/** Digit runs joined by separators or by up to three letters (`1h45`, `3m20s`), as one figure. */
const FIGURE = /\d+(?:(?:[.,'’]| (?=\d{3}(?!\d))|\p{L}{1,3}(?=\d))\d+)*/gu;
const NEXT_TOKEN = /^\s{0,2}(?:[\p{L}\p{M}][\p{L}\p{M}'’-]*\.?|[^\s\p{L}\p{N}])/u;
const CLOSING = /^(?:[.,;:!?)\]}"”’»]|\.{3}|…)(?:\s|$)/u;

/** Why a figure the readers took (`text[start, end)`) is in doubt: a mark before or after it they did not read. */
function doubt(
  text: string,
  start: number,
  end: number,
  digits: string,
  english: boolean,
): 'before' | 'after' | 'glued' | undefined {
  // Letters between digits the reader did not compose (`3m20`; `1h45` it reads as a time or a duration).
  const span = text.slice(start, end);
  if (/\d\p{L}+\d/u.test(span) && !/^\d{1,2}h\d\d$/.test(span)) return 'glued';
  // A letter or apostrophe glued before: `'98`, `FY24` — but `H1`, `Q3`, `A4` name, they do not elide.
  const previous = text[start - 1] ?? ' ';
  if (
    /['’‘\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}]/u.test(previous) &&
    digits.replace(/\D/g, '').length > 1
  )
    return 'before';
  if (/\p{S}/u.test(previous) && !SIGNS.test(previous)) return 'before';
  // `(1,200)`: read as the negative accounts mean, but a writer may only have put it in brackets.
  if (previous === '(' && text[end] === ')' && accounting(text, start, end, digits)) return 'before';
  // A unit, scale or currency read after the digits closes the figure: what follows is another matter —
  // unless what was read is a scale in another language (`4,5 mi` is miles or Portuguese millions).
  const read = text
    .slice(start, end)
    .replace(/^\D*[\d.,'’ ]*\d/, '')
    .trim();
  if (read) {
    const first = read.split(/\s/)[0]!;
    // A unit the reader only keeps as written (`kVA`) converts to nothing it knows.
    return (unreadScale(first.toLowerCase()) && !readsAsScale(first)) || opaqueUnit(first)
      ? 'after'
      : undefined;
  }
  const tail = text.slice(end);
  if (tail === '' || /^\s*\n/.test(tail) || CLOSING.test(tail)) return undefined;
  const token = tail.match(NEXT_TOKEN)?.[0].trim();
  if (!token) return undefined;
  if (!/^[\p{L}\p{M}]/u.test(token)) return /^[-–—/(&+=|]$/.test(token) ? undefined : 'after';
  if (!/^[\p{Script=Latin}'’.-]+$/u.test(token)) return 'after';
  const [lower, bare] = [token.toLowerCase(), token.replace(/\.$/, '').toLowerCase()];
  if (namesScaleOrCurrency(lower) || namesScaleOrCurrency(bare) || scaleAndCurrency(bare)) return 'after';
  // One letter is a symbol; two lower-case letters are mostly English words ("in", "to"), not units.
  if (/^\p{L}$/u.test(token) && !/^[aAI]$/.test(token)) return 'after';
  if ((token.length > 2 || token !== lower) && (namesUnit(lower) || namesUnit(bare))) return 'after';
  // An abbreviation: a short word with a stop that does not end the sentence, or one with capitals inside.
  const afterToken = tail.slice(tail.indexOf(token) + token.length);
  // (A capital after it ends an English sentence; German writes its nouns with one.)
  if (
    token.endsWith('.') &&
    token.length <= 6 &&
    !(english && /^(?:\s+[\p{Lu}\d"“(]|\s*$)/u.test(afterToken))
  )
    return 'after';
  if (/^\p{L}+$/u.test(token) && /\p{Lu}/u.test(token.slice(1))) return 'after';
  return undefined;
}

/** A unit the reader keeps only as written (its class `w:`), which converts to nothing. */
const opaqueUnit = (symbol: string): boolean =>
  OPAQUE.test(symbol) && (unitOf(undefined, ` ${symbol}`)?.cls.startsWith('w:') ?? false);
/** The shapes of symbol the unit reader keeps as written (see UNIT_AFTER's last alternative). */
const OPAQUE = /^(?:[A-Z]{2,5}s?|[a-zµ]{1,2}[A-Z][A-Za-z]{0,3}|[A-Z][a-z])$/;

/** A scale and a currency written as one word: Swedish `tkr` and `mnkr`, `Mio€`. */
function scaleAndCurrency(word: string): boolean {
  for (let i = 1; i < word.length - 1; i++)
    if (namesScaleOrCurrency(word.slice(0, i)) && namesScaleOrCurrency(word.slice(i))) return true;
  return false;
}

/** SI prefixes (BIPM), by factor. */
const PREFIXES: [string, number][] = [
  ['da', 1e1],
  ['h', 1e2],
  ['k', 1e3],
  ['M', 1e6],
  ['G', 1e9],
  ['T', 1e12],
  ['P', 1e15],
  ['d', 1e-1],
  ['c', 1e-2],
  ['m', 1e-3],
  ['µ', 1e-6],
  ['u', 1e-6],
  ['n', 1e-9],
  ['p', 1e-12],
];

/** A symbol as itself and as each SI prefix on a base symbol: `kVA` → [1, kVA], [1000, VA]. */
const prefixed = (symbol: string): [number, string][] => [
  [1, symbol],
  ...PREFIXES.filter(([p]) => symbol.length > p.length && symbol.startsWith(p)).map(
    ([p, f]): [number, string] => [f, symbol.slice(p.length)],
  ),
];

/** Signs and the currencies the number reader reads before a figure. */
const SIGNS = /[-−+–$€£¥₹]/;

/** A value a figure's digits can stand for, and the place of its last digit in that reading. */
interface Reading {
  value: number;
  step: number;
}

/** The values a figure's digits can stand for: as a number in either decimal convention, grouping removed. */
function readingsOf(figure: string): Reading[] {
  const out = new Map<number, Reading>();
  const add = (whole: string, decimals: string) => {
    const value = Number(`${whole}.${decimals || '0'}`);
    if (value > 0 && Number.isFinite(value) && !out.has(value))
      out.set(value, { value, step: 10 ** -decimals.length });
  };
  const runs = figure.match(/\d+/g)!;
  if (/\p{L}/u.test(figure)) {
    for (const r of runs) add(r, '');
    return [...out.values()];
  }
  add(runs.join(''), '');
  // The last separator as the decimal mark (`1.234,5`, `3,2`, `3.600`): the rest grouping.
  const last = Math.max(figure.lastIndexOf('.'), figure.lastIndexOf(','));
  if (last > 0) add(figure.slice(0, last).replace(/\D/g, ''), figure.slice(last + 1));
  return [...out.values()];
}

/**
 * Whether an unread source figure could be an answer's figure: the answer's value at some power of ten,
 * within the answer's own rounding (3.2 and `3,2 Mrd.`, 3,600 and `3.6 kVA`); or the answer's digit runs
 * all among the figure's (`1 h 45 min` and `1h45`); or the answer's digits ending in the figure's, an
 * elided start (`1998` and `'98`).
 */
export function couldBe(fact: Fact, unread: UnreadFigure): boolean {
  const written = fact.raw.match(/\d+(?:[.,'’ ]\d+)*/g);
  if (!written) return false;
  const answerRuns = fact.raw.match(/\d+/g)!.map((r) => r.replace(/^0+(?=\d)/, ''));
  if (answerRuns.length > 1 && answerRuns.every((r) => unread.runs.includes(r))) return true;
  const digits = answerRuns.join('');
  if (
    answerRuns.length === 1 &&
    unread.runs.some((r) => r.length >= 2 && r.length < digits.length && digits.endsWith(r))
  )
    return true;
  const share = slack(fact);
  const close = (a: Reading, u: number) =>
    Math.abs(u - a.value) < Math.max(a.step / 2, share * a.value) * (1 - 1e-9) ||
    Math.abs(u - a.value) <= 1e-9 * a.value;
  // A unit kept as written is known up to an SI prefix: `3.6 kVA` is 3,600 VA, never 3,600 kW or 3.6 VA.
  const answerUnit = fact.raw.match(/\d\s?([A-Za-zµ]+)$/)?.[1];
  if (unread.unit && answerUnit && !readsAsScale(answerUnit))
    return written.some((w) =>
      readingsOf(w).some((a) =>
        unread.values.some((u) =>
          prefixed(unread.unit!).some(([fu, bu]) =>
            prefixed(answerUnit).some(
              ([fa, ba]) => ba === bu && close({ ...a, value: a.value * fa, step: a.step * fa }, u * fu),
            ),
          ),
        ),
      ),
    );
  for (const w of written)
    for (const a of readingsOf(w))
      for (const u of unread.values) {
        const k = Math.round(Math.log10(a.value / u));
        for (const p of [k - 1, k, k + 1]) if (close(a, u * 10 ** p)) return true;
      }
  return false;
}

/** How far an approximate answer's figure may be from what it restates, as a share of it. */
function slack(fact: Fact): number {
  let share = 0;
  for (const n of fact.near ?? [])
    if (n.approx && n.value !== 0)
      share = Math.max(share, ((n.below ?? 0) + (n.above ?? 0)) / Math.abs(n.value));
  return Math.min(share, 0.25);
}

const ENGLISH = new Set(
  'the of and to in is was for that with by from on at as are were be has have it its this which'.split(' '),
);

/** Whether a text is English prose: its commonest function words make up a share of its words. */
export function isEnglish(text: string): boolean {
  const words =
    text
      .slice(0, 4000)
      .toLowerCase()
      .match(/\p{L}+/gu) ?? [];
  let common = 0;
  for (const w of words) if (ENGLISH.has(w)) common++;
  // A few words cannot tell a language: the report's own, English, is assumed.
  return words.length < 6 || common / words.length >= 0.08;
}
