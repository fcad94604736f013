import { InvalidArgumentError, Option } from 'commander';
import { DURATION_EXPECTED, parseDuration } from '../../cache/duration.js';
import { PROVIDERS } from '../../providers/registry.js';
import { parseUsd, USD_EXPECTED } from '../../research/run/budget.js';

// Option parsers and options shared by several commands.

/** A parser for a whole number written in digits (not `1e3`, not `2.0`) from `min` to `max`. */
export function wholeNumber(min: number, max = Number.MAX_SAFE_INTEGER): (value: string) => number {
  const expected = max === Number.MAX_SAFE_INTEGER ? `of at least ${min}` : `from ${min} to ${max}`;
  return (value) => {
    const n = /^\s*\d+\s*$/.test(value) ? Number(value) : Number.NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max)
      throw new InvalidArgumentError(`expected a whole number ${expected}.`);
    return n;
  };
}

export const positiveInt = wholeNumber(1);

/**
 * A parser for a name, id or path that cannot be empty: `--model ""` (an unset variable in a script,
 * say) is a mistake to report, not a request for the default.
 */
export function nonEmpty(value: string): string {
  if (value.trim() === '')
    throw new InvalidArgumentError('it is empty: give a value, or leave the option out for the default.');
  return value;
}

/** `--max-cost <usd>`, shared by research and chat. */
export const maxCostOption = (what: string) =>
  new Option('--max-cost <usd>', `${what} (default: $AGENT_MAX_COST)`).argParser((value) => {
    const n = parseUsd(value);
    if (n === undefined) throw new InvalidArgumentError(`${USD_EXPECTED}.`);
    return n;
  });

/** `--provider`, shared by every command that calls a model. */
export const providerOption = () =>
  new Option(
    '--provider <name>',
    'model provider (default: $AGENT_PROVIDER, else the first API key set)',
  ).choices(PROVIDERS);

/** A duration option (`30m`, `12h`, `7d`, `0`), parsed to milliseconds. */
export function duration(value: string): number {
  const ms = parseDuration(value);
  if (ms === undefined) throw new InvalidArgumentError(`${DURATION_EXPECTED}.`);
  return ms;
}

/** `--max-age`: how long a page read by URL is used from the page cache (research, chat, read). */
export const maxAgeOption = () =>
  new Option(
    '--max-age <age>',
    'use a cached page this long without asking its server again: 30m, 12h, 7d; 0 always asks (default: $AGENT_MAX_AGE, else 1d)',
  ).argParser(duration);
