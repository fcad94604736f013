import type { Usage } from '../types.js';

/** US dollars per million tokens. */
export interface Price {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  source: string;
  /** A higher tier some models charge on every token of a call whose prompt is longer than `threshold`. */
  longPrompt?: { threshold: number; input: number; output: number; cacheRead: number; cacheWrite: number };
}

/** US dollars per million tokens; `longPrompt` applies to a whole call whose prompt exceeds its threshold. */
export interface PriceTable {
  [model: string]: Price;
}

// List prices per million tokens, from the vendors' pricing pages as read on 2026-11-05.
// Anthropic: cache write is the 5-minute write. OpenAI: cached input is billed at the cached rate;
// models before GPT-6 have no cache-write charge, so it equals the input price.
const ANTHROPIC = 'platform.claude.com/docs/en/about-claude/pricing, 2026-11-05';
const OPENAI = 'developers.openai.com/api/docs/pricing, 2026-11-05';
const a = (
  input: number,
  output: number,
  cacheRead: number,
  cacheWrite: number,
  extra: Partial<Price> = {},
): Price => ({
  input,
  output,
  cacheRead,
  cacheWrite,
  source: ANTHROPIC,
  ...extra,
});
const o = (input: number, output: number, cacheRead: number, cacheWrite = input): Price => ({
  input,
  output,
  cacheRead,
  cacheWrite,
  source: OPENAI,
});

const BUILT_IN: PriceTable = {
  'claude-fable-5-1': a(10, 50, 0.25, 12.5),
  'claude-fable-5': a(10, 50, 1, 12.5),
  'claude-opus-5-5': a(4, 20, 0.2, 5),
  'claude-opus-5': a(5, 25, 0.5, 6.25),
  'claude-opus-4-8': a(5, 25, 0.5, 6.25),
  'claude-opus-4-7': a(5, 25, 0.5, 6.25),
  'claude-opus-4-6': a(5, 25, 0.5, 6.25),
  'claude-opus-4-5': a(5, 25, 0.5, 6.25),
  'claude-opus-4-1': a(15, 75, 1.5, 18.75),
  'claude-sonnet-5-5': a(2, 10, 0.1, 2.5), // cache reads cut to $0.10 on 2026-10-07
  'claude-sonnet-5': a(2, 10, 0.2, 2.5),
  'claude-sonnet-4-6': a(3, 15, 0.3, 3.75),
  'claude-sonnet-4-5': a(3, 15, 0.3, 3.75),
  'claude-sonnet-4': a(3, 15, 0.3, 3.75),
  'claude-haiku-5-5': a(0.1, 0.5, 0.01, 0.125, {
    longPrompt: { threshold: 100_000, input: 0.5, output: 2.5, cacheRead: 0.05, cacheWrite: 0.625 },
  }),
  'claude-haiku-4-5': a(1, 5, 0.1, 1.25),
  'claude-3-5-haiku': a(0.8, 4, 0.08, 1),
  'gpt-6-sol': o(2, 10, 0.2, 2.5),
  'gpt-6-luna': o(0.1, 0.5, 0.01, 0.125),
  'gpt-5.4': o(2.5, 15, 0.25),
  'gpt-5.4-mini': o(0.75, 4.5, 0.075),
  'gpt-5.1': o(1.25, 10, 0.125),
  'gpt-5': o(1.25, 10, 0.125),
  'gpt-5-mini': o(0.25, 2, 0.025),
  'gpt-5-nano': o(0.05, 0.4, 0.005),
  'gpt-4.1': o(2, 8, 0.5),
  'gpt-4.1-mini': o(0.4, 1.6, 0.1),
  'gpt-4.1-nano': o(0.1, 0.4, 0.025),
  'gpt-4o': o(2.5, 10, 1.25),
  'gpt-4o-mini': o(0.15, 0.6, 0.075),
  o3: o(2, 8, 0.5),
  'o4-mini': o(1.1, 4.4, 0.275),
  // Embeddings: input only.
  'text-embedding-3-small': o(0.02, 0, 0.02),
  'text-embedding-3-large': o(0.13, 0, 0.13),
  'text-embedding-ada-002': o(0.1, 0, 0.1),
};

const DATED_SUFFIX = /-(\d{8}|\d{4}-\d{2}-\d{2}|latest)$/;

const LOCAL: Price = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, source: 'local model (ollama)' };

/**
 * The price for a model id: the user's file first, then the built-in table. Dated snapshots
 * (`claude-sonnet-4-5-20250929`, `gpt-4o-2024-08-06`) take their family's price; any other suffix
 * (`gpt-5-pro`) is a different model and stays unknown rather than borrowing a wrong price.
 */
export function findPrice(provider: string, model: string, userPrices: PriceTable = {}): Price | undefined {
  const exact = userPrices[model];
  if (exact) return exact;
  if (provider === 'ollama') return LOCAL;
  const family = model.replace(DATED_SUFFIX, '');
  return userPrices[family] ?? BUILT_IN[model] ?? BUILT_IN[family];
}

export function costOf(usage: Usage, base: Price): number {
  const prompt = usage.input + usage.cacheRead + usage.cacheWrite;
  const price = base.longPrompt && prompt > base.longPrompt.threshold ? base.longPrompt : base;
  return (
    (usage.input * price.input +
      usage.output * price.output +
      usage.cacheRead * price.cacheRead +
      usage.cacheWrite * price.cacheWrite) /
    1_000_000
  );
}
