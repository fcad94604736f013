import type { Usage } from '../types.js';

/** US dollars per million tokens. */
export interface Price {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  source: string;
}

// List prices per million tokens. Anthropic: cache write is the 5-minute write (1.25x input), cache
// read 0.1x input. OpenAI: cached input is billed at the cached rate, and there is no cache-write charge.
const ANTHROPIC = 'anthropic.com/pricing, 2025-11-25';
const OPENAI = 'openai.com/api/pricing, 2025-11-25';
const BUILT_IN: Record<string, Omit<Price, 'source'> & { source: string }> = {
  'claude-opus-4-5': { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25, source: ANTHROPIC },
  'claude-opus-4-1': { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75, source: ANTHROPIC },
  'claude-opus-4': { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75, source: ANTHROPIC },
  'claude-sonnet-4-5': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75, source: ANTHROPIC },
  'claude-sonnet-4': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75, source: ANTHROPIC },
  'claude-3-7-sonnet': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75, source: ANTHROPIC },
  'claude-haiku-4-5': { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25, source: ANTHROPIC },
  'claude-3-5-haiku': { input: 0.8, output: 4, cacheRead: 0.08, cacheWrite: 1, source: ANTHROPIC },
  'gpt-5.1': { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 1.25, source: OPENAI },
  'gpt-5': { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 1.25, source: OPENAI },
  'gpt-5-mini': { input: 0.25, output: 2, cacheRead: 0.025, cacheWrite: 0.25, source: OPENAI },
  'gpt-5-nano': { input: 0.05, output: 0.4, cacheRead: 0.005, cacheWrite: 0.05, source: OPENAI },
  'gpt-4.1': { input: 2, output: 8, cacheRead: 0.5, cacheWrite: 2, source: OPENAI },
  'gpt-4.1-mini': { input: 0.4, output: 1.6, cacheRead: 0.1, cacheWrite: 0.4, source: OPENAI },
  'gpt-4.1-nano': { input: 0.1, output: 0.4, cacheRead: 0.025, cacheWrite: 0.1, source: OPENAI },
  'gpt-4o': { input: 2.5, output: 10, cacheRead: 1.25, cacheWrite: 2.5, source: OPENAI },
  'gpt-4o-mini': { input: 0.15, output: 0.6, cacheRead: 0.075, cacheWrite: 0.15, source: OPENAI },
  o3: { input: 2, output: 8, cacheRead: 0.5, cacheWrite: 2, source: OPENAI },
  'o4-mini': { input: 1.1, output: 4.4, cacheRead: 0.275, cacheWrite: 1.1, source: OPENAI },
};

const DATED_SUFFIX = /-(\d{8}|\d{4}-\d{2}-\d{2}|latest)$/;

const LOCAL: Price = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, source: 'local model (ollama)' };

/**
 * The price for a model id: the user's file first, then the built-in table. Dated snapshots
 * (`claude-sonnet-4-5-20250929`, `gpt-4o-2024-08-06`) take their family's price; any other suffix
 * (`gpt-5-pro`) is a different model and stays unknown rather than borrowing a wrong price.
 */
export function findPrice(
  provider: string,
  model: string,
  userPrices: Record<string, Price> = {},
): Price | undefined {
  const exact = userPrices[model];
  if (exact) return exact;
  if (provider === 'ollama') return LOCAL;
  const family = model.replace(DATED_SUFFIX, '');
  return userPrices[family] ?? BUILT_IN[model] ?? BUILT_IN[family];
}

export function costOf(usage: Usage, price: Price): number {
  return (
    (usage.input * price.input +
      usage.output * price.output +
      usage.cacheRead * price.cacheRead +
      usage.cacheWrite * price.cacheWrite) /
    1_000_000
  );
}
