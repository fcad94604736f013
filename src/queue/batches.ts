import { randomBytes, randomUUID } from 'node:crypto';
import { UsageError } from '../errors.js';
import type { BatchEntry } from '../research/run/batch-file.js';
import { isLineError } from '../research/run/batch-file.js';
import { type Client, type Db, rows } from '../store/postgres/db.js';
import { type Boss, leaseSeconds, QUEUE_NAME } from './boss.js';

// Batches and their items (db/migrations/postgres/018_batches.sql): what each job is and what became
// of it. A batch, its items and their jobs are written in one transaction, so a batch is queued whole.

export type ItemState = 'queued' | 'running' | 'done' | 'failed' | 'cancelled';
export const ITEM_STATES: ItemState[] = ['queued', 'running', 'done', 'failed', 'cancelled'];

export interface BatchRow {
  id: string;
  createdAt: number;
  user: string;
  source: string;
  options: Record<string, unknown>;
  maxCostUsd: number | null;
  cancelled: boolean;
}

export interface BatchCounts extends Record<ItemState, number> {
  total: number;
}

export interface BatchSummary extends BatchRow {
  counts: BatchCounts;
  /** Dollars its model calls cost so far (the ledger's rows that carry the batch). */
  spentUsd: number;
  /** Its purse is spent: workers start none of its questions any more. */
  capSpent: boolean;
}

export interface Item {
  batchId: string;
  line: number;
  question: string | null;
  overrides: Record<string, unknown>;
  ledgerId: string;
  jobId: string | null;
  state: ItemState;
  runId: number | null;
  result: Record<string, unknown> | null;
  error: string | null;
  attempts: number;
}

/** What marks an item failed because its batch's purse was spent. */
export const CAP_SPENT_MARK = "the batch's cap (--max-cost) is spent";

const ITEM_COLUMNS = `batch_id AS "batchId", line, question, overrides, ledger_id AS "ledgerId",
  job_id AS "jobId", state, run_id AS "runId", result, error, attempts`;

/**
 * A job of the research queue. Its lease until a worker first renews it is this process's
 * (AGENT_QUEUE_LEASE): a worker killed between taking a job and renewing it holds it no longer than that.
 */
const job = (batch: string, line: number) => ({
  id: randomUUID(),
  name: QUEUE_NAME,
  data: { batch, line },
  expireInSeconds: leaseSeconds(),
});

/** pg-boss's executor on a transaction's connection, so jobs are added with the rows that describe them. */
const onClient = (c: Client) => ({
  executeSql: (text: string, values?: unknown[]) => c.query(text, values as unknown[]),
});

/** Queues a batch: its row, one item per line (a line that cannot be read is failed at once), one job each. */
export async function createBatch(
  db: Db,
  boss: Boss,
  o: {
    source: string;
    options: object;
    maxCostUsd?: number;
    entries: BatchEntry[];
    user: string;
  },
): Promise<{ id: string; queued: number; failed: number }> {
  const id = randomBytes(4).toString('hex');
  const now = Date.now();
  return db.tx(async (c) => {
    await c.query(
      `INSERT INTO batches (id, created_at, created_by, source, options, max_cost_usd)
       VALUES ($1, $2, $3, $4, $5, $6)`,
      [id, now, o.user, o.source, JSON.stringify(o.options), o.maxCostUsd ?? null],
    );
    const jobs: ReturnType<typeof job>[] = [];
    let failed = 0;
    for (const entry of o.entries) {
      const bad = isLineError(entry);
      const queued = bad ? undefined : job(id, entry.line);
      if (bad) failed++;
      await c.query(
        `INSERT INTO batch_items (batch_id, line, question, overrides, ledger_id, job_id, state, result, error,
           updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
        [
          id,
          entry.line,
          entry.question ?? null,
          JSON.stringify(bad ? {} : entry.options),
          randomUUID(),
          queued?.id ?? null,
          bad ? 'failed' : 'queued',
          bad ? JSON.stringify(entry) : null,
          bad ? entry.error : null,
          now,
        ],
      );
      if (queued) jobs.push(queued);
    }
    if (jobs.length) await boss.insert(jobs, { db: onClient(c) } as never);
    return { id, queued: jobs.length, failed };
  });
}

const BATCH_COLUMNS = `b.id, b.created_at AS "createdAt", coalesce(b.created_by, '') AS "user", b.source,
  b.options, b.max_cost_usd AS "maxCostUsd", b.cancelled_at IS NOT NULL AS cancelled`;

const COUNTS = `count(i.line) AS total,
  ${ITEM_STATES.map((s) => `count(i.line) FILTER (WHERE i.state = '${s}') AS n_${s}`).join(',\n  ')},
  bool_or(i.error LIKE '%' || '${CAP_SPENT_MARK.replaceAll("'", "''")}' || '%') AS "capSpent"`;

const SPENT = `(SELECT coalesce(sum(l.cost_usd), 0) FROM usage_ledger l WHERE l.batch_id = b.id) AS "spentUsd"`;

type SummaryRow = BatchRow & { [K in `n_${ItemState}` | 'total']: number } & {
  spentUsd: number;
  capSpent: boolean;
};

const summary = (r: SummaryRow): BatchSummary => {
  const { total, n_queued, n_running, n_done, n_failed, n_cancelled, capSpent, spentUsd, ...batch } = r;
  return {
    ...batch,
    cancelled: Boolean(batch.cancelled),
    counts: {
      total,
      queued: n_queued,
      running: n_running,
      done: n_done,
      failed: n_failed,
      cancelled: n_cancelled,
    },
    spentUsd,
    capSpent: Boolean(capSpent),
  };
};

/** The newest batches first. */
export async function listBatches(db: Db, limit = 20): Promise<BatchSummary[]> {
  const found = await db.query<SummaryRow>(
    `SELECT ${BATCH_COLUMNS}, ${COUNTS}, ${SPENT} FROM batches b LEFT JOIN batch_items i ON i.batch_id = b.id
     GROUP BY b.id ORDER BY b.created_at DESC, b.id LIMIT $1`,
    [limit],
  );
  return found.map(summary);
}

/** One batch, or a usage error naming the command that lists them. */
export async function getBatch(db: Db, id: string): Promise<BatchSummary> {
  const [row] = await db.query<SummaryRow>(
    `SELECT ${BATCH_COLUMNS}, ${COUNTS}, ${SPENT} FROM batches b LEFT JOIN batch_items i ON i.batch_id = b.id
     WHERE b.id = $1 GROUP BY b.id`,
    [id],
  );
  if (!row) throw new UsageError(`There is no batch ${id}: \`agent batch list\` shows the batches.`);
  return summary(row);
}

export async function items(db: Db, batchId: string, states?: ItemState[]): Promise<Item[]> {
  return db.query<Item>(
    `SELECT ${ITEM_COLUMNS} FROM batch_items WHERE batch_id = $1 ${states ? 'AND state = ANY($2)' : ''}
     ORDER BY line`,
    states ? [batchId, states] : [batchId],
  );
}

/**
 * What a job does first, in one statement: it takes its item for `holder` (one not held, or held by a
 * worker silent for `staleMs`, whose lease ran out; never a settled one or one of a cancelled batch) and
 * reads the item as it was, its batch, and the research run the item kept (by its id, or by the ledger
 * id it was started under, for a worker that died before noting it). `taken` is false while another
 * worker holds the item: two deliveries of one job never run side by side.
 */
export async function jobStart(
  db: Db,
  batchId: string,
  line: number,
  holder: string,
  staleMs: number,
): Promise<{ item?: Item; batch?: BatchRow; run?: { id: number; status: string }; taken: boolean }> {
  const now = Date.now();
  const row = await db.one<{
    item: Item;
    batch: BatchRow | null;
    runId: number | null;
    runStatus: string;
    taken: boolean;
  }>(
    `WITH took AS (
       UPDATE batch_items SET state = 'running', holder = $3, attempts = attempts + 1, updated_at = $4
       WHERE batch_id = $1 AND line = $2 AND state IN ('queued', 'running')
         AND (holder IS NULL OR holder = $3 OR updated_at < $5)
         AND NOT EXISTS (SELECT 1 FROM batches WHERE id = $1 AND cancelled_at IS NOT NULL)
       RETURNING line)
     SELECT pg_catalog.row_to_json(i) AS item, pg_catalog.row_to_json(bb) AS batch, r.id AS "runId",
       r.status AS "runStatus", EXISTS (SELECT 1 FROM took) AS taken
     FROM (SELECT ${ITEM_COLUMNS} FROM batch_items WHERE batch_id = $1 AND line = $2) AS i
     LEFT JOIN LATERAL (SELECT ${BATCH_COLUMNS} FROM batches b WHERE b.id = $1) AS bb ON true
     LEFT JOIN LATERAL (
       SELECT r.id, r.status FROM research_runs r
       WHERE r.id = i."runId" OR r.id = (SELECT run_id FROM run_progress WHERE ledger_id = i."ledgerId" LIMIT 1)
       ORDER BY r.id LIMIT 1
     ) AS r ON true`,
    [batchId, line, holder, now, now - staleMs],
  );
  if (!row) return { taken: false };
  return {
    item: row.item,
    batch: row.batch ?? undefined,
    run: row.runId === null ? undefined : { id: row.runId, status: row.runStatus },
    taken: row.taken,
  };
}

/** Marks the batch cancelled (its author only) and cancels its queued jobs; running ones stop at their next step. */
export async function cancelBatch(db: Db, boss: Boss, id: string): Promise<number> {
  await getBatch(db, id);
  const changed = await db.query('UPDATE batches SET cancelled_at = $2 WHERE id = $1 RETURNING id', [
    id,
    Date.now(),
  ]);
  if (!changed.length)
    throw new UsageError(`Batch ${id} is not yours: only the person who queued it may cancel it.`);
  const queued = await db.query<{ jobId: string }>(
    `UPDATE batch_items SET state = 'cancelled', updated_at = $2 WHERE batch_id = $1 AND state = 'queued'
     RETURNING job_id AS "jobId"`,
    [id, Date.now()],
  );
  const ids = queued.map((q) => q.jobId).filter(Boolean);
  if (ids.length) await boss.cancel(QUEUE_NAME, ids);
  return queued.length;
}

/** Queues the batch's failed questions again (a line that could not be read stays failed); how many. */
export async function retryBatch(db: Db, boss: Boss, id: string): Promise<number> {
  const batch = await getBatch(db, id);
  if (batch.cancelled) throw new UsageError(`Batch ${id} was cancelled: queue its file again instead.`);
  return db.tx(async (c) => {
    const failed = await rows<{ line: number }>(
      c,
      `SELECT line FROM batch_items WHERE batch_id = $1 AND state = 'failed' AND question IS NOT NULL
       ORDER BY line FOR UPDATE`,
      [id],
    );
    const jobs = failed.map((f) => job(id, f.line));
    for (const job of jobs)
      await c.query(
        `UPDATE batch_items SET state = 'queued', error = NULL, result = NULL, job_id = $3, updated_at = $4
         WHERE batch_id = $1 AND line = $2`,
        [id, job.data.line, job.id, Date.now()],
      );
    if (jobs.length) await boss.insert(jobs, { db: onClient(c) } as never);
    return jobs.length;
  });
}

/** Changes an item's progress columns (any member's worker may; db/grants.sql allows only these). */
export async function updateItem(
  db: Db,
  batchId: string,
  line: number,
  change: Partial<Pick<Item, 'state' | 'runId' | 'result' | 'error'>> & { holder?: string | null },
): Promise<void> {
  const sets = ['updated_at = $3'];
  const params: unknown[] = [batchId, line, Date.now()];
  const set = (column: string, value: unknown) => {
    params.push(value);
    sets.push(`${column} = $${params.length}`);
  };
  if (change.state !== undefined) set('state', change.state);
  if (change.runId !== undefined) set('run_id', change.runId);
  if (change.result !== undefined) set('result', JSON.stringify(change.result));
  if (change.error !== undefined) set('error', change.error);
  if (change.holder !== undefined) set('holder', change.holder);
  await db.query(`UPDATE batch_items SET ${sets.join(', ')} WHERE batch_id = $1 AND line = $2`, params);
}

/** The holder's heartbeat on its item. */
export async function touchItem(db: Db, it: Item, holder: string): Promise<void> {
  await db.query('UPDATE batch_items SET updated_at = $4 WHERE batch_id = $1 AND line = $2 AND holder = $3', [
    it.batchId,
    it.line,
    holder,
    Date.now(),
  ]);
}

/** Whether the batch was cancelled (asked between a running job's steps). */
export async function isCancelled(db: Db, batchId: string): Promise<boolean> {
  const row = await db.one<{ c: boolean }>(
    'SELECT cancelled_at IS NOT NULL AS c FROM batches WHERE id = $1',
    [batchId],
  );
  return Boolean(row?.c);
}

/** The batch's spend so far, from the ledger. */
export async function batchSpent(db: Db, batchId: string): Promise<number> {
  const row = await db.one<{ spent: number }>(
    'SELECT coalesce(sum(cost_usd), 0) AS spent FROM usage_ledger WHERE batch_id = $1',
    [batchId],
  );
  return row?.spent ?? 0;
}
