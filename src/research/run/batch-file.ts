import { errorMessage } from '../../errors.js';
import { PERIOD_HINT, parseDomain, parsePeriod } from '../../web/search/filters.js';
import type { ResearchSettings } from '../types.js';

// A batch file (`agent research --batch <file>`): one question per line, or a JSON object per line with
// "question" and any of the run's settings, which override the command line's for that line only. Blank
// lines and lines starting with `#` are skipped. A line that cannot be used fails alone, with its number.

/** What a JSON line may set besides "question": the `settings` keys of `--json`, and `verify`. */
export interface BatchOverrides extends Partial<ResearchSettings> {
  verify?: boolean;
}

export interface BatchQuestion {
  /** 1-based line number in the file. */
  line: number;
  question: string;
  options: BatchOverrides;
}

export interface BatchLineError {
  line: number;
  /** The line's question, when it could be read. */
  question?: string;
  error: string;
}

export type BatchEntry = BatchQuestion | BatchLineError;

export const isLineError = (e: BatchEntry): e is BatchLineError => 'error' in e;

/** A value checked: its value for the run, or what was expected instead (`… , not <value>`). */
type Check = (value: unknown) => { value: unknown } | { error: string };

const not = (what: string, value: unknown) => ({ error: `${what}, not ${JSON.stringify(value)}` });

const wholeNumber =
  (min: number, max = Number.MAX_SAFE_INTEGER): Check =>
  (value) =>
    typeof value === 'number' && Number.isSafeInteger(value) && value >= min && value <= max
      ? { value }
      : not(
          `a whole number ${max === Number.MAX_SAFE_INTEGER ? `of at least ${min}` : `from ${min} to ${max}`}`,
          value,
        );

const boolean: Check = (value) => (typeof value === 'boolean' ? { value } : not('true or false', value));

/** A domain or a list of them (a URL or `www.` form is cut to its host), without repeats. */
const domains: Check = (value) => {
  const list = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(list)) return not('a domain or a list of domains such as ["example.com"]', value);
  const out: string[] = [];
  for (const item of list) {
    const domain = typeof item === 'string' ? parseDomain(item) : undefined;
    if (!domain) return not('a domain such as example.com', item);
    if (!out.includes(domain)) out.push(domain);
  }
  return { value: out };
};

const period: Check = (value) =>
  typeof value === 'string' && parsePeriod(value)
    ? { value: value.trim().toLowerCase() }
    : not(PERIOD_HINT, value);

const CHECKS: Record<keyof BatchOverrides, Check> = {
  depth: wholeNumber(1),
  breadth: wholeNumber(1),
  perSearch: wholeNumber(1, 10),
  maxSources: wholeNumber(1),
  report: boolean,
  sites: domains,
  excludeSites: domains,
  recent: period,
  verify: boolean,
};

export const BATCH_KEYS = ['question', ...Object.keys(CHECKS)];

/** The question as a person would see it: control characters and escape sequences do not count. */
const visible = (text: string) => text.replace(/\p{C}/gu, '').trim();

/** Every line of the file that is not blank or a comment: a question to run, or why it cannot be. */
export function parseBatch(text: string): BatchEntry[] {
  const entries: BatchEntry[] = [];
  text
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
    .forEach((raw, i) => {
      const trimmed = raw.trim();
      if (!trimmed || trimmed.startsWith('#')) return;
      const line = i + 1;
      const entry = trimmed.startsWith('{') ? jsonLine(trimmed, line) : plainLine(trimmed, line);
      entries.push(entry);
    });
  return entries;
}

function plainLine(question: string, line: number): BatchEntry {
  return visible(question)
    ? { line, question, options: {} }
    : { line, error: 'the question is empty once control characters are left out' };
}

function jsonLine(text: string, line: number): BatchEntry {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { line, error: `not valid JSON: ${errorMessage(error)}` };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    return { line, error: 'expected a JSON object such as {"question": "…"}' };
  const fields = parsed as Record<string, unknown>;
  const question = typeof fields.question === 'string' ? fields.question.trim() : undefined;
  const fail = (error: string): BatchLineError => ({ line, ...(question ? { question } : {}), error });
  if (fields.question === undefined) return fail('no "question" key');
  if (question === undefined) return fail('"question" must be a string');
  if (!visible(question)) return fail('the question is empty');
  const options: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (key === 'question') continue;
    const check = CHECKS[key as keyof BatchOverrides];
    if (!Object.hasOwn(CHECKS, key) || !check)
      return fail(`unknown key "${key}": the keys are ${BATCH_KEYS.join(', ')}`);
    const checked = check(value);
    if ('error' in checked) return fail(`"${key}" must be ${checked.error}`);
    options[key] = checked.value;
  }
  return { line, question, options: options as BatchOverrides };
}
