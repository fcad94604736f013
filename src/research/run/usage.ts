import type { RunUsage } from '../types.js';

// A run's totals of its model and embedding calls.

/** A run's totals before any call. */
export const noRunUsage = (): RunUsage => ({
  calls: 0,
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  reasoningTokens: 0,
  costUsd: 0,
});

/** Two runs' totals as one: each count added up; dollars unknown when either is. */
export function addRunUsage(a: RunUsage, b: RunUsage): RunUsage {
  const counts = Object.fromEntries(
    (Object.keys(a) as (keyof RunUsage)[]).map((k) => [k, (a[k] ?? 0) + (b[k] ?? 0)]),
  ) as RunUsage;
  return { ...counts, costUsd: a.costUsd === null || b.costUsd === null ? null : a.costUsd + b.costUsd };
}
