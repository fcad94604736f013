import { costOf, findPrice, type Price } from '../../providers/prices.js';
import { LEDGER_COLUMNS, ledgerValues } from '../rows.js';
import type { CostReport, GroupBy, LedgerEntry, LedgerStore } from '../store.js';
import type { Db } from './db.js';

// The ledger on PostgreSQL: one row per model call, priced when recorded (the price is kept on the row).
// Reports add up as SQLite's do, with the same keys; a day is the day in this process's time zone.

const AGGREGATES = `count(*) AS "calls",
  coalesce(sum(input_tokens), 0) AS "inputTokens",
  coalesce(sum(output_tokens), 0) AS "outputTokens",
  coalesce(sum(cache_read_tokens), 0) AS "cacheReadTokens",
  coalesce(sum(cache_write_tokens), 0) AS "cacheWriteTokens",
  coalesce(sum(reasoning_tokens), 0) AS "reasoningTokens",
  sum(cost_usd) AS "costUsd",
  count(*) FILTER (WHERE cost_usd IS NULL) AS "unpricedCalls",
  count(*) FILTER (WHERE cancelled) AS "cancelledCalls"`;

const GROUP_SQL: Record<GroupBy, string> = {
  model: "provider || ' ' || model",
  day: "pg_catalog.to_char(pg_catalog.to_timestamp(ts / 1000.0) AT TIME ZONE $1, 'YYYY-MM-DD')",
  command: 'command',
  // Calls recorded before agent recorded people have no user.
  user: "coalesce(nullif(created_by, ''), 'unknown')",
  // Calls outside any queued batch (chats, runs of one's own terminal).
  batch: "coalesce(batch_id, 'none')",
};

const localZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

export class PgLedger implements LedgerStore {
  constructor(
    private readonly db: Db,
    private readonly user: string,
  ) {}

  async record(entry: LedgerEntry, userPrices: Record<string, Price> = {}): Promise<number | null> {
    const price = findPrice(entry.provider, entry.model, userPrices);
    const cost = price ? costOf(entry.usage, price) : null;
    const values = [...ledgerValues(entry, price, cost, this.user), entry.batchId ?? null];
    await this.db.query(
      `INSERT INTO usage_ledger (${LEDGER_COLUMNS}, batch_id) VALUES (${values.map((_, n) => `$${n + 1}`).join(', ')})`,
      values,
    );
    return cost;
  }

  async report(options: { by: GroupBy; since?: number }): Promise<CostReport> {
    const params: unknown[] = options.by === 'day' ? [localZone()] : [];
    let where = '';
    if (options.since !== undefined) {
      params.push(options.since);
      where = `WHERE ts >= $${params.length}`;
    }
    // Keys in byte order, as SQLite sorts them (an output name cannot take COLLATE: the expression does).
    const key = `(${GROUP_SQL[options.by]}) COLLATE "C"`;
    const order = options.by === 'day' ? key : `"costUsd" DESC NULLS LAST, "calls" DESC, ${key}`;
    const rows = await this.db.query<CostReport['rows'][number]>(
      `SELECT ${GROUP_SQL[options.by]} AS key, ${AGGREGATES} FROM usage_ledger ${where}
       GROUP BY 1 ORDER BY ${order}`,
      params,
    );
    const totalParams = options.since === undefined ? [] : [options.since];
    const totals = await this.db.one<CostReport['totals']>(
      `SELECT ${AGGREGATES} FROM usage_ledger ${options.since === undefined ? '' : 'WHERE ts >= $1'}`,
      totalParams,
    );
    return { totals: totals!, rows };
  }

  async runTotals(runId: string): Promise<CostReport['totals']> {
    return (await this.db.one<CostReport['totals']>(
      `SELECT ${AGGREGATES} FROM usage_ledger WHERE run_id = $1`,
      [runId],
    ))!;
  }

  async spentSince(runIds: string[], since: number): Promise<number> {
    if (runIds.length === 0) return 0;
    const row = await this.db.one<{ spent: number }>(
      'SELECT coalesce(sum(cost_usd), 0) AS spent FROM usage_ledger WHERE ts >= $1 AND run_id = ANY($2)',
      [since, runIds],
    );
    return row?.spent ?? 0;
  }
}
