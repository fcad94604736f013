import { digitRuns } from './fact.js';

// A source's figures in digits are read from windows around its runs of digits. A long source has
// hundreds of them, and the claims that cite it ask for a few values: only the windows whose digits
// could state one of those values are read. What a window's digits could state is judged by their
// significant digits (`2,500,000`, `2.5 million` and `25` all show `25`), which a value keeps whatever
// its grouping, decimal separator, scale word or sign; the few keys a fact gives from other digits (a
// time's other half of the day, a two-digit year, a duration in other units) are asked for under those
// digits too. Windows are read in groups that no pattern can match across, so a window read alone gives
// exactly the facts it gives in a full read.

const BEFORE = 24;
const AFTER = 40;
/**
 * Neighbouring windows are read together unless the text between their figures holds this many
 * non-space characters after the first figure, and `APART_BEFORE` before the second: no pattern spans
 * that much text after a figure (the longest, a date range's `1st September. through 15`, spans 19) or
 * before one (`the middle of 2026`, `September, of 2026`: 13).
 */
const APART_AFTER = 24;
const APART_BEFORE = 16;
/** Significant digits from which a value's key may be rounded (see canonical): such windows are always read. */
const EXACT = 1e10;

export interface Windows {
  /** The windows joined by blank lines: the text the date, period and number readers read. */
  text: string;
  /** Groups of windows read together, each as its text and the significant digits its figures show. */
  groups: { text: string; digits: Set<number> | null }[];
}

/**
 * The parts of a text that can hold a figure in digits: a window around every run of digits, cut at
 * spaces, joined by blank lines. Prose between figures is never scanned by the date, period and number
 * readers, which keeps a long source's reading to one quick pass over the whole of it.
 */
export function digitWindows(text: string): Windows {
  const spans: [number, number][] = [];
  const runs: number[] = [];
  digitRuns(text, (start, end) => {
    runs.push(start, end);
    const last = spans.at(-1);
    if (last && start - BEFORE <= last[1]) last[1] = end + AFTER;
    else spans.push([start - BEFORE, end + AFTER]);
  });
  if (spans.length === 0) return { text: '', groups: [] };
  if (spans.length === 1 && spans[0]![0] <= 0 && spans[0]![1] >= text.length)
    return { text, groups: [{ text, digits: null }] };
  const cuts = spans.map(([start, end]): [number, number] => [
    start <= 0 ? 0 : Math.max(text.lastIndexOf(' ', start), text.lastIndexOf('\n', start)) + 1,
    end >= text.length ? text.length : nextSpace(text, end),
  ]);
  const parts: string[] = [];
  const groups: Windows['groups'] = [];
  let group: string[] = [];
  let digits = new Set<number>();
  let exact = true;
  let lo = 0;
  for (let i = 0; i < cuts.length; i++) {
    const [from, to] = cuts[i]!;
    const part = text.slice(from, to);
    parts.push(part);
    group.push(part);
    // The runs inside this window (windows may overlap when no space falls between them).
    while (runs[lo + 1]! <= from) lo += 2;
    let hi = lo;
    while (hi < runs.length && runs[hi]! < to) hi += 2;
    let scaled = false;
    for (let k = lo; k < hi; k += 2) {
      if (after(SCALED, text, runs[k + 1]!)) scaled = true;
      if (after(RANGE, text, runs[k + 1]!)) digits.add(RANGED);
    }
    exact = figures(text, runs, lo, hi, scaled, digits) && exact;
    const next = cuts[i + 1];
    if (next && (next[0] < to || !apart(text, runs[hi - 1]!, to, next[0], runs[hi]!))) continue;
    groups.push({ text: group.join('\n\n'), digits: exact ? digits : null });
    group = [];
    digits = new Set<number>();
    exact = true;
  }
  return { text: parts.join('\n\n'), groups };
}

function nextSpace(text: string, from: number): number {
  const space = /\s/g;
  space.lastIndex = from;
  return space.exec(text)?.index ?? text.length;
}

/** Whether the window ending at `to` (its last digit at `lastDigit`) and the next are far enough apart. */
function apart(text: string, lastDigit: number, to: number, nextFrom: number, nextDigit: number): boolean {
  return solid(text, lastDigit, to) >= APART_AFTER && solid(text, nextFrom, nextDigit) >= APART_BEFORE;
}

function solid(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 10 && c !== 9 && c !== 13) n++;
  }
  return n;
}

/** A scale after a figure (`2.5m`, `3 billion`, `1,5 Mio.`): it may then be worth any power of ten more. */
const SCALED = /[kKMBmb]|Tsd|\s+(?:hundred|thousand|million|billion|trillion|lakh|crore)/y;

/** A range of days (`1–15`, `1st to 15th`, `March 1 – April 3`): it gives days whose digits it does not show. */
const RANGE = /(?:st|nd|rd|th)?(?:\s+\p{L}+\.?)?\s*(?:[-–—]|to|through|until|till)\s*(?:\p{L}+\.?\s+)?\d/uy;

/** Whether a sticky pattern matches right after a run of digits. */
function after(pattern: RegExp, text: string, at: number): boolean {
  pattern.lastIndex = at;
  return pattern.test(text);
}
const RANGED = -1;

/** A run of digits followed, across one separator a number may hold, by another. */
const SEPARATOR = new Set([...",.'’ "].map((c) => c.charCodeAt(0)));

/**
 * Adds the shapes of every figure the runs `runs[first..last)` could be read as: each sequence of runs
 * joined by single separators (`10 000` is one figure, and `2024 10 000` may be `2024`). False when a
 * figure has too many digits for its key to keep them all.
 */
function figures(
  text: string,
  runs: number[],
  first: number,
  last: number,
  scaled: boolean,
  out: Set<number>,
): boolean {
  for (let i = first; i < last; i += 2) {
    // The figure's significant digits as a number, and how many digits it has before its first
    // significant one (leading zeros) and after its last (trailing zeros), kept as the runs are joined.
    let sig = 0;
    let digits = 0;
    let lead = 0;
    let trail = 0;
    for (let j = i; j < last; j += 2) {
      const intDigits = digits;
      for (let k = runs[j]!; k < runs[j + 1]!; k++) {
        const d = text.charCodeAt(k) - 48;
        digits++;
        if (d === 0) {
          if (digits - 1 === lead) lead++;
          else trail++;
          continue;
        }
        for (; trail > 0; trail--) sig *= 10;
        sig = sig * 10 + d;
        if (sig >= EXACT) return false;
      }
      if (lead === digits) sig = 0;
      if (scaled) out.add(shape(sig, ANY));
      out.add(shape(sig, lead === digits ? 0 : digits - lead));
      // Read with a decimal point or comma before this run.
      const sep = j > i ? text.charCodeAt(runs[j]! - 1) : 0;
      if (sep === 46 || sep === 44)
        out.add(shape(sig, lead < intDigits ? intDigits - lead : lead === digits ? 0 : intDigits - lead));
      const gap = runs[j + 2];
      if (gap === undefined || j + 2 >= last || gap !== runs[j + 1]! + 1) break;
      if (!SEPARATOR.has(text.charCodeAt(runs[j + 1]!))) break;
    }
  }
  return true;
}

const ANY = 99;
/** A figure's shape as one number: its significant digits and its magnitude (ANY: any power of ten). */
const shape = (sig: number, magnitude: number): number => sig * 256 + magnitude + 128;

/**
 * The shapes of a value as written (digits, separators, no sign): `2,500` → 25 at magnitude 4; `2.5` →
 * 25 at 1, or at 2 if the point groups; with `scaled`, also 25 at any magnitude.
 */
function shapesOf(written: string, out: Set<number>): boolean {
  const runs: number[] = [];
  digitRuns(written, (start, end) => runs.push(start, end));
  // The separators between runs are single characters: a canonical value or a key's written digits.
  return figures(written, runs, 0, runs.length, true, out);
}

const SECONDS = [1, 60, 3600, 86400, 604800];
const MONTHS = [1, 12];

/**
 * The significant digits a source's figure may show when it gives one of these keys, or null when a
 * key could come from a figure whose digits cannot be told in advance (a day of a date range with no
 * year): then every window is read.
 */
export function wantedDigits(keys: Iterable<string>): Set<number> | null {
  const out = new Set<number>();
  const value = (v: string): boolean => {
    if (!/^-?\d+(?:[.,'’]\d+)*$/.test(v)) return false;
    const add = (written: string) => shapesOf(written, out);
    if (!add(v.replace('-', ''))) return false;
    const n = Number(v);
    // A time gives its hour both ways (`5 pm` gives 17, `17:00` gives 5, `12 am` and `00:30` give 0 and 12).
    if (Number.isInteger(n) && n >= 0 && n <= 23) {
      if (n + 12 <= 23) add(String(n + 12));
      if (n >= 12) add(String(n - 12));
    }
    // A year may be written with two digits (`FY26`, `Q3 '26`, `01/03/26`).
    if (Number.isInteger(n) && n >= 2000 && n <= 2099) add(String(n - 2000));
    return true;
  };
  for (const key of keys) {
    const colon = key.indexOf(':');
    const prefix = key.slice(0, colon);
    const rest = key.slice(colon + 1);
    const last = rest.slice(rest.lastIndexOf(':') + 1);
    let ok: boolean;
    if (prefix === 'n' || prefix === 'b') ok = value(rest);
    else if (prefix === 'u' && (rest.startsWith('s:') || rest.startsWith('mo:'))) {
      // A duration in seconds or months: the figure may be in any of the units that convert to it.
      const n = Number(last);
      ok = Number.isFinite(n) && /^-?\d+(?:\.\d+)?$/.test(last);
      for (const f of rest.startsWith('s:') ? SECONDS : MONTHS) {
        const v = String(Number((n / f).toPrecision(12)));
        // 5,184,000 s is not a whole number of weeks: a figure of ten digits or fewer never gives it so
        // (those with more are always read).
        const digits = v.replace(/^[-0.]+|\.|0+$/g, '');
        if (ok && (!/^\d+(?:\.\d+)?$/.test(v) || digits.length <= 10)) ok = value(v);
      }
    } else if (prefix === 'u') ok = value(last);
    else if (prefix === 'w' || prefix === 'wb' || prefix === 'wu' || prefix === 'vw') ok = value(last);
    else if (prefix === 'd' || prefix === 'd2' || prefix === 'md') {
      // A day is written with its digits, or inside a range of days (`March 1–15` gives March 7).
      ok = value(String(Number(rest.slice(-2))));
      out.add(RANGED);
    } else if (['m', 'mid', 'fy', 'dw'].includes(prefix)) ok = value(/\d{4}/.exec(rest)?.[0] ?? '');
    else if (prefix === 'q' || prefix === 'h') ok = value(rest);
    else if (prefix === 't' || prefix === 't12') {
      const [hour, minute] = rest.split(':');
      ok = value(hour!) && value(minute!) && value('0');
    } else ok = false;
    if (!ok) return null;
  }
  return out;
}
