import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { ConfigError, errorMessage } from '../errors.js';
import { configDirectory } from '../paths.js';
import type { Price } from './prices.js';

// Kept apart from the price table so that reading the ledger (`agent cost`) never loads zod; and zod
// is loaded only when a price file exists, since most runs have none and every command reads this.

const requireCjs = createRequire(import.meta.url);

function priceFileSchema() {
  const { z } = requireCjs('zod') as typeof import('zod');
  return z.record(
    z.string(),
    z.strictObject({
      input: z.number().nonnegative(),
      output: z.number().nonnegative(),
      cacheRead: z.number().nonnegative().optional(),
      cacheWrite: z.number().nonnegative().optional(),
    }),
  );
}

/** `AGENT_PRICES`, else `<config dir>/prices.json`. */
export function priceFilePath(env: NodeJS.ProcessEnv = process.env): string {
  return env.AGENT_PRICES || join(configDirectory(env), 'prices.json');
}

/** Reads the user's price overrides; a missing default file is fine, a broken one is an error. */
export function loadUserPrices(path = priceFilePath()): Record<string, Price> {
  if (!existsSync(path)) return {};
  let parsed: Record<string, { input: number; output: number; cacheRead?: number; cacheWrite?: number }>;
  try {
    parsed = priceFileSchema().parse(JSON.parse(readFileSync(path, 'utf8')));
  } catch (error) {
    throw new ConfigError(
      `The price file ${path} is not valid: ${errorMessage(error)}. Expected {"model-id": {"input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75}} in USD per million tokens.`,
    );
  }
  const prices: Record<string, Price> = {};
  for (const [model, p] of Object.entries(parsed)) {
    prices[model] = {
      input: p.input,
      output: p.output,
      cacheRead: p.cacheRead ?? p.input,
      cacheWrite: p.cacheWrite ?? p.input,
      source: `user file ${path}`,
    };
  }
  return prices;
}
