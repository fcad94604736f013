import { holderGone, RUN_STALE_MS } from '../holder.js';
import type { Claim, ProgressStore, RunProgress, StartedRun } from '../store.js';
import { deflateText, inflateText, textHash } from '../texts.js';
import { type Client, type Db, rows } from './db.js';
import { dropProgressAndTexts, dropUnusedTexts } from './run-texts.js';

// Unfinished research runs on PostgreSQL: each step its own short transaction, committed the moment the
// step is done, so a run cut off at any point (a dropped connection, a kill) keeps everything before it.

export class PgProgress implements ProgressStore {
  constructor(
    private readonly db: Db,
    private readonly user: string,
  ) {}

  /** The run's row, its progress and its first plan: one statement. */
  async start(run: StartedRun): Promise<number> {
    const [row] = await this.db.query<{ id: number }>(
      `WITH run AS (
         INSERT INTO research_runs (created_at, question, mode, answer, cost_usd, result, status, created_by)
         VALUES ($1, $2, 'model', '', NULL, '{}', 'unfinished', $3) RETURNING id
       ),
       progress AS (
         INSERT INTO run_progress (run_id, ledger_id, options, holder, heartbeat)
         SELECT id, $4::text, $5::json, $6::text, $7::bigint FROM run
       ),
       planned AS (INSERT INTO run_plans (run_id, round, plan) SELECT id, 1, $8::json FROM run)
       SELECT id FROM run`,
      [
        run.createdAt,
        run.question,
        this.user,
        run.ledgerId,
        JSON.stringify(run.options),
        run.holder,
        Date.now(),
        JSON.stringify(run.plan),
      ],
    );
    return row!.id;
  }

  async recordPlan(id: number, round: number, value: object): Promise<void> {
    await this.db.query(
      `INSERT INTO run_plans (run_id, round, plan) VALUES ($1, $2, $3)
       ON CONFLICT (run_id, round) DO UPDATE SET plan = excluded.plan`,
      [id, round, JSON.stringify(value)],
    );
  }

  async recordSearch(id: number, query: string, results: unknown[]): Promise<void> {
    await this.db.query(
      `INSERT INTO run_searches (run_id, query, results) VALUES ($1, $2, $3)
       ON CONFLICT (run_id, query) DO UPDATE SET results = excluded.results`,
      [id, query, JSON.stringify(results)],
    );
  }

  /** A source read: its description and its text (stored once); facts already recorded are kept. */
  async recordSource(id: number, key: string, source: object, text: string): Promise<void> {
    const hash = textHash(text);
    // One statement: the source recorded, its text stored unless it is (only then is it compressed).
    const record = (store: boolean) =>
      `WITH old AS (SELECT hash FROM run_sources WHERE run_id = $1 AND key = $2 FOR UPDATE),
         ${store ? 'stored AS (INSERT INTO source_texts (hash, chars, body) VALUES ($4, $5, $6) ON CONFLICT (hash) DO NOTHING),' : ''}
         kept AS (INSERT INTO run_sources (run_id, key, source, hash) SELECT $1::bigint, $2::text, $3::json, $4::text
           ${store ? '' : 'WHERE EXISTS (SELECT 1 FROM source_texts WHERE hash = $4)'}
           ON CONFLICT (run_id, key) DO UPDATE SET source = excluded.source, hash = excluded.hash RETURNING 1)
       SELECT (SELECT hash FROM old) AS old, (SELECT count(*) FROM kept)::int AS kept`;
    const params = [id, key, JSON.stringify(source), hash];
    let [row] = await this.db.query<{ old: string | null; kept: number }>(record(false), params);
    if (!row!.kept) [row] = await this.db.query(record(true), [...params, text.length, deflateText(text)]);
    const old = row!.old;
    if (old && old !== hash) await this.db.tx((c) => dropUnusedTexts(c, [old]));
  }

  async recordFacts(id: number, key: string, facts: string): Promise<void> {
    await this.db.query('UPDATE run_sources SET facts = $1 WHERE run_id = $2 AND key = $3', [facts, id, key]);
  }

  async renew(id: number, holder: string): Promise<boolean> {
    const found = await this.db.query(
      'UPDATE run_progress SET heartbeat = $1 WHERE run_id = $2 AND holder = $3 RETURNING run_id',
      [Date.now(), id, holder],
    );
    return found.length > 0;
  }

  async release(id: number, holder: string): Promise<void> {
    await this.db.query('UPDATE run_progress SET holder = NULL WHERE run_id = $1 AND holder = $2', [
      id,
      holder,
    ]);
  }

  /** The check and the take in one transaction, the rows locked (FOR UPDATE): one process wins. */
  async claim(id: number, holder: string): Promise<Claim> {
    return this.db.tx(async (c): Promise<Claim> => {
      const [row] = await rows<{ status: string; holder: string | null; heartbeat: number | null }>(
        c,
        `SELECT r.status, p.holder, p.heartbeat FROM research_runs r
         LEFT JOIN run_progress p ON p.run_id = r.id WHERE r.id = $1 FOR UPDATE OF r`,
        [id],
      );
      if (!row) return { outcome: 'missing' };
      if (row.status !== 'unfinished' || row.heartbeat === null) return { outcome: 'done' };
      if (
        row.holder &&
        !holderGone({ holder: row.holder, heartbeat: row.heartbeat }, Date.now(), RUN_STALE_MS)
      )
        return { outcome: 'busy', holder: row.holder };
      await c.query('UPDATE run_progress SET holder = $1, heartbeat = $2 WHERE run_id = $3', [
        holder,
        Date.now(),
        id,
      ]);
      return { outcome: 'claimed', progress: (await load(c, id))! };
    });
  }

  async load(id: number): Promise<RunProgress | undefined> {
    return this.db.tx((c) => load(c, id));
  }

  /** Drops a run's progress (as SQLite's dropProgress), and the texts nothing else uses any more. */
  async drop(id: number): Promise<void> {
    await this.db.tx((c) => dropProgressAndTexts(c, id));
  }
}

async function load(c: Client, id: number): Promise<RunProgress | undefined> {
  const [row] = await rows<{
    question: string;
    status: 'done' | 'unfinished';
    ledger_id: string;
    options: Record<string, unknown>;
    holder: string | null;
    heartbeat: number;
  }>(
    c,
    `SELECT r.question, r.status, p.ledger_id, p.options, p.holder, p.heartbeat
     FROM research_runs r JOIN run_progress p ON p.run_id = r.id WHERE r.id = $1`,
    [id],
  );
  if (!row) return undefined;
  const plans = await rows<{ round: number; plan: Record<string, unknown> }>(
    c,
    'SELECT round, plan FROM run_plans WHERE run_id = $1 ORDER BY round',
    [id],
  );
  const searches = await rows<{ query: string; results: unknown[] }>(
    c,
    'SELECT query, results FROM run_searches WHERE run_id = $1',
    [id],
  );
  const sources = await rows<{
    key: string;
    source: Record<string, unknown>;
    facts: string | null;
    body: Buffer;
  }>(
    c,
    `SELECT s.key, s.source, s.facts, t.body FROM run_sources s JOIN source_texts t ON t.hash = s.hash
     WHERE s.run_id = $1 ORDER BY s.seq`,
    [id],
  );
  return {
    id,
    question: row.question,
    status: row.status,
    ledgerId: row.ledger_id,
    options: row.options,
    holder: row.holder,
    heartbeat: row.heartbeat,
    plans: new Map(plans.map((p) => [p.round, p.plan])),
    searches: new Map(searches.map((s) => [s.query, s.results])),
    sources: new Map(
      sources.map((s) => [s.key, { source: s.source, text: inflateText(s.body), facts: s.facts }]),
    ),
  };
}
