import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, errorMessage } from '../errors.js';
import { configDirectory } from '../paths.js';
import type { Price } from './prices.js';

// Kept apart from the price table so that reading the ledger (`agent cost`) never loads this. Checked
// by hand rather than with a schema library: the file is four numbers per model, and each problem is
// reported on its own line with its key, which a person can act on.

const FIELDS = ['input', 'output', 'cacheRead', 'cacheWrite'] as const;
const REQUIRED = new Set<string>(['input', 'output']);
/** A dollar a token: above any model's price, and low enough that no cost can overflow to Infinity. */
const MAX_PRICE = 1_000_000;

const EXAMPLE =
  'Expected {"model-id": {"input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75}} in USD per million tokens.';

/** `AGENT_PRICES`, else `<config dir>/prices.json`. */
export function priceFilePath(env: NodeJS.ProcessEnv = process.env): string {
  return env.AGENT_PRICES || join(configDirectory(env), 'prices.json');
}

/** How a JSON value looks, for "expected a number, got …". */
function shown(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'number' && !Number.isFinite(value)) return 'a number too large to represent';
  return JSON.stringify(value);
}

/** One line per problem, each starting with the key it is about; empty when the file is usable. */
export function priceFileProblems(json: unknown): string[] {
  if (json === null || typeof json !== 'object' || Array.isArray(json))
    return [`expected an object of models, got ${shown(json)}`];
  const problems: string[] = [];
  for (const [model, entry] of Object.entries(json)) {
    const key = JSON.stringify(model);
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
      problems.push(`${key}: expected an object with "input" and "output", got ${shown(entry)}`);
      continue;
    }
    for (const field of FIELDS) {
      const value = (entry as Record<string, unknown>)[field];
      if (value === undefined) {
        if (REQUIRED.has(field)) problems.push(`${key}.${field}: missing`);
      } else if (typeof value !== 'number' || !(value >= 0 && value <= MAX_PRICE)) {
        problems.push(
          `${key}.${field}: expected a price from 0 to ${MAX_PRICE.toLocaleString('en-US')} (USD per million tokens), got ${shown(value)}`,
        );
      }
    }
    for (const field of Object.keys(entry))
      if (!(FIELDS as readonly string[]).includes(field))
        problems.push(`${key}.${field}: unknown key (the keys are ${FIELDS.join(', ')})`);
  }
  return problems;
}

/**
 * The user's price overrides: from `path`, else `AGENT_PRICES`, else the default file. No file at the
 * default path (or at a path given here) means none; a file named by `AGENT_PRICES` must exist; a file
 * that exists must be valid. Problems are a ConfigError (exit 2) naming the file.
 */
export function loadUserPrices(path?: string, env: NodeJS.ProcessEnv = process.env): Record<string, Price> {
  const file = path ?? priceFilePath(env);
  const required = path === undefined && Boolean(env.AGENT_PRICES);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && !required) return {};
    if (code === 'ENOENT') throw new ConfigError(`The price file ${file} (AGENT_PRICES) does not exist.`);
    throw new ConfigError(`Cannot read the price file ${file}: ${errorMessage(error)}.`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`The price file ${file} is not JSON (${errorMessage(error)}). ${EXAMPLE}`);
  }
  const problems = priceFileProblems(json);
  if (problems.length > 0)
    throw new ConfigError(
      `The price file ${file} is not valid:\n${problems.map((p) => `  ${p}`).join('\n')}\n${EXAMPLE}`,
    );
  const prices: Record<string, Price> = {};
  for (const [model, p] of Object.entries(json as Record<string, Record<string, number>>)) {
    const input = p.input!;
    prices[model] = {
      input,
      output: p.output!,
      cacheRead: p.cacheRead ?? input,
      cacheWrite: p.cacheWrite ?? input,
      source: `user file ${file}`,
    };
  }
  return prices;
}
