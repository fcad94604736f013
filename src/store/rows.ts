import type { Price } from '../providers/prices.js';
import type { LedgerEntry, RunSummary, SessionSummary } from './types.js';

// Rows as both databases return and take them (the same column names on each side): mapped to the
// store's types, and the ledger's insert, in one place so the two implementations cannot drift apart.

/** A chat session's columns with its counts (exchanges, calls and their cost), as listed. */
export interface SessionSummaryRow {
  id: number;
  run_id: string;
  created_at: number;
  updated_at: number;
  provider: string;
  model: string;
  first_message: string;
  exchanges: number;
  calls: number;
  unpriced: number;
  priced_usd: number | null;
  created_by: string | null;
}

export const toSessionSummary = (r: SessionSummaryRow): SessionSummary => ({
  id: r.id,
  runId: r.run_id,
  createdAt: new Date(r.created_at).toISOString(),
  updatedAt: new Date(r.updated_at).toISOString(),
  provider: r.provider,
  model: r.model,
  exchanges: r.exchanges,
  calls: r.calls,
  unpricedCalls: r.unpriced,
  pricedUsd: r.priced_usd,
  firstMessage: r.first_message,
  user: r.created_by ?? '',
});

/** A research run's columns as listed. */
export interface RunSummaryRow {
  id: number;
  created_at: number;
  question: string;
  mode: string;
  cost_usd: number | null;
  status: 'done' | 'unfinished';
  created_by: string | null;
}

/**
 * A run's columns for listing (RunSummaryRow), the same SQL on both databases; an unfinished run's cost is
 * what its calls have cost so far.
 */
export const RUN_SUMMARY_COLUMNS = `r.id, r.created_at, r.question, r.mode, r.status, r.created_by,
  CASE WHEN r.status = 'done' THEN r.cost_usd ELSE (
    SELECT CASE WHEN count(*) > count(u.cost_usd) THEN NULL ELSE coalesce(sum(u.cost_usd), 0) END
    FROM run_progress p JOIN usage_ledger u ON u.run_id = p.ledger_id WHERE p.run_id = r.id
  ) END AS cost_usd`;

export const toRunSummary = (r: RunSummaryRow): RunSummary => ({
  id: r.id,
  createdAt: new Date(r.created_at).toISOString(),
  question: r.question,
  mode: r.mode,
  costUsd: r.cost_usd,
  status: r.status,
  user: r.created_by ?? '',
});

/** The ledger's columns in the order of ledgerValues. */
export const LEDGER_COLUMNS = `ts, command, run_id, step, provider, model, input_tokens, cache_read_tokens,
  cache_write_tokens, output_tokens, reasoning_tokens, price_input, price_output, price_cache_read,
  price_cache_write, price_source, cost_usd, cancelled, created_by`;

/** One model call's row, priced (the price is kept on the row); `cancelled` as a boolean. */
export function ledgerValues(
  entry: LedgerEntry,
  price: Price | undefined,
  cost: number | null,
  user: string | null,
): unknown[] {
  return [
    entry.ts ?? Date.now(),
    entry.command,
    entry.runId,
    entry.step,
    entry.provider,
    entry.model,
    entry.usage.input,
    entry.usage.cacheRead,
    entry.usage.cacheWrite,
    entry.usage.output,
    entry.usage.reasoning,
    price?.input ?? null,
    price?.output ?? null,
    price?.cacheRead ?? null,
    price?.cacheWrite ?? null,
    price?.source ?? null,
    cost,
    entry.cancelled === true,
    user,
  ];
}
