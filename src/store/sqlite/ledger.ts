import type { Statement } from 'better-sqlite3';
import { costOf, findPrice, type Price } from '../../providers/prices.js';
import { LEDGER_COLUMNS, ledgerValues } from '../rows.js';
import type { CostReport, CostRow, GroupBy, LedgerEntry } from '../types.js';
import { type Db, writeError } from './open.js';

/**
 * Writes one row per model call, pricing it now: the price used is stored on the row so that a later
 * change of prices never rewrites history. Unknown models get tokens and a NULL cost.
 */
export function recordCall(
  db: Db,
  entry: LedgerEntry,
  userPrices: Record<string, Price> = {},
  user: string | null = null,
): number | null {
  const price = findPrice(entry.provider, entry.model, userPrices);
  const cost = price ? costOf(entry.usage, price) : null;
  try {
    insertRow(db, entry, price, cost, user);
  } catch (error) {
    throw writeError(db, error);
  }
  return cost;
}

function insertRow(
  db: Db,
  entry: LedgerEntry,
  price: Price | undefined,
  cost: number | null,
  user: string | null,
): void {
  // SQLite has no boolean: `cancelled` is 0 or 1.
  const values = ledgerValues(entry, price, cost, user).map((v) => (typeof v === 'boolean' ? Number(v) : v));
  let insert = inserts.get(db);
  if (!insert) {
    insert = db.prepare(
      `INSERT INTO usage_ledger (${LEDGER_COLUMNS}) VALUES (${values.map(() => '?').join(', ')})`,
    );
    inserts.set(db, insert);
  }
  insert.run(...values);
}

/** The insert, prepared once per connection: indexing records a call per batch of 64 passages. */
const inserts = new WeakMap<Db, Statement>();

const GROUP_SQL: Record<GroupBy, string> = {
  model: "provider || ' ' || model",
  day: "date(ts / 1000, 'unixepoch', 'localtime')",
  command: 'command',
  // Calls recorded before agent recorded people have no user.
  user: "coalesce(nullif(created_by, ''), 'unknown')",
  // Batches are queued in a team database only: every call of an SQLite file is outside one.
  batch: "'none'",
};

const AGGREGATES = `COUNT(*) AS calls,
  COALESCE(SUM(input_tokens), 0) AS inputTokens,
  COALESCE(SUM(output_tokens), 0) AS outputTokens,
  COALESCE(SUM(cache_read_tokens), 0) AS cacheReadTokens,
  COALESCE(SUM(cache_write_tokens), 0) AS cacheWriteTokens,
  COALESCE(SUM(reasoning_tokens), 0) AS reasoningTokens,
  SUM(cost_usd) AS costUsd,
  COALESCE(SUM(cost_usd IS NULL), 0) AS unpricedCalls,
  COALESCE(SUM(cancelled), 0) AS cancelledCalls`;

export function costReport(db: Db, options: { by: GroupBy; since?: number }): CostReport {
  const where = options.since === undefined ? '' : 'WHERE ts >= @since';
  const params = options.since === undefined ? {} : { since: options.since };
  const order = options.by === 'day' ? 'key' : 'costUsd DESC NULLS LAST, calls DESC, key';
  const rows = db
    .prepare(
      `SELECT ${GROUP_SQL[options.by]} AS key, ${AGGREGATES} FROM usage_ledger ${where} GROUP BY key ORDER BY ${order}`,
    )
    .all(params) as CostRow[];
  const totals = db
    .prepare(`SELECT ${AGGREGATES} FROM usage_ledger ${where}`)
    .get(params) as CostReport['totals'];
  return { totals, rows };
}

/** The spend of one chat session or research run. */
export function runTotals(db: Db, runId: string): CostReport['totals'] {
  return db
    .prepare(`SELECT ${AGGREGATES} FROM usage_ledger WHERE run_id = ?`)
    .get(runId) as CostReport['totals'];
}

/** Dollars spent by these runs since a moment (calls with no known price count as nothing). */
export function spentSince(db: Db, runIds: string[], since: number): number {
  if (runIds.length === 0) return 0;
  const row = db
    .prepare(
      `SELECT COALESCE(SUM(cost_usd), 0) AS spent FROM usage_ledger WHERE ts >= ? AND run_id IN (${runIds.map(() => '?').join(', ')})`,
    )
    .get(since, ...runIds) as { spent: number };
  return row.spent;
}
