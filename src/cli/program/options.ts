import { InvalidArgumentError, Option } from 'commander';
import { PROVIDERS } from '../../providers/registry.js';

// Option parsers and options shared by several commands.

export function positiveInt(value: string): number {
  const n = /^\s*\d+\s*$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 1)
    throw new InvalidArgumentError('expected a whole number of at least 1.');
  return n;
}

/** `--provider`, shared by every command that calls a model. */
export const providerOption = () =>
  new Option(
    '--provider <name>',
    'model provider (default: $AGENT_PROVIDER, else the first API key set)',
  ).choices(PROVIDERS);
