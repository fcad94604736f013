import { holderGone, RUN_STALE_MS } from '../holder.js';
import { inflateText } from '../texts.js';
import type { Claim, RunProgress, StartedRun } from '../types.js';
import { type Db, writeError } from './open.js';
import { storeText } from './run-texts.js';

// The progress of research runs that have not answered yet (see db/migrations/sqlite/013_run_progress.sql):
// each write is its own short transaction, made the moment a step is done, so that a run killed at any
// point keeps everything before it, and other processes sharing the file are never held up for long.

const write = <T>(db: Db, work: () => T): T => {
  try {
    return db.transaction(work).immediate();
  } catch (error) {
    throw writeError(db, error);
  }
};

/** Keeps a new run as unfinished, with its plan (round 1); returns its number. */
export function startRun(db: Db, run: StartedRun, user: string | null = null): number {
  return write(db, () => {
    const id = db
      .prepare(
        `INSERT INTO research_runs (created_at, question, mode, answer, cost_usd, result, status, created_by)
         VALUES (?, ?, 'model', '', NULL, '{}', 'unfinished', ?) RETURNING id`,
      )
      .pluck()
      .get(run.createdAt, run.question, user) as number;
    db.prepare(
      'INSERT INTO run_progress (run_id, ledger_id, options, holder, heartbeat) VALUES (?, ?, ?, ?, ?)',
    ).run(id, run.ledgerId, JSON.stringify(run.options), run.holder, Date.now());
    recordPlan(db, id, 1, run.plan);
    return id;
  });
}

export function recordPlan(db: Db, id: number, round: number, plan: object): void {
  write(db, () =>
    db
      .prepare('INSERT OR REPLACE INTO run_plans (run_id, round, plan) VALUES (?, ?, ?)')
      .run(id, round, JSON.stringify(plan)),
  );
}

export function recordSearch(db: Db, id: number, query: string, results: unknown[]): void {
  write(db, () =>
    db
      .prepare('INSERT OR REPLACE INTO run_searches (run_id, query, results) VALUES (?, ?, ?)')
      .run(id, query, JSON.stringify(results)),
  );
}

/** A source read: its description and its text (stored once); facts already recorded are kept. */
export function recordSource(db: Db, id: number, key: string, source: object, text: string): void {
  write(db, () => {
    const hash = storeText(db, text);
    const old = db.prepare('SELECT hash FROM run_sources WHERE run_id = ? AND key = ?').pluck().get(id, key);
    db.prepare(
      `INSERT INTO run_sources (run_id, key, source, hash) VALUES (?, ?, ?, ?)
       ON CONFLICT (run_id, key) DO UPDATE SET source = excluded.source, hash = excluded.hash`,
    ).run(id, key, JSON.stringify(source), hash);
    // A source read again with another text: its old text goes unless something else uses it (the
    // delete trigger of run_sources does this for deleted rows, not for updated ones).
    if (old !== undefined && old !== hash)
      db.prepare(
        `DELETE FROM source_texts WHERE hash = @old AND NOT EXISTS (SELECT 1 FROM run_texts WHERE hash = @old)
           AND NOT EXISTS (SELECT 1 FROM run_sources WHERE hash = @old)`,
      ).run({ old });
  });
}

export function recordFacts(db: Db, id: number, key: string, facts: string): void {
  write(db, () =>
    db.prepare('UPDATE run_sources SET facts = ? WHERE run_id = ? AND key = ?').run(facts, id, key),
  );
}

/** Renews the holder's heartbeat; false when the run is no longer its own (deleted, or taken over). */
export function renewRun(db: Db, id: number, holder: string): boolean {
  return (
    db
      .prepare('UPDATE run_progress SET heartbeat = ? WHERE run_id = ? AND holder = ?')
      .run(Date.now(), id, holder).changes > 0
  );
}

/** The holder lets go of a run it stopped working on, so it can be resumed at once. */
export function releaseRun(db: Db, id: number, holder: string): void {
  write(db, () =>
    db.prepare('UPDATE run_progress SET holder = NULL WHERE run_id = ? AND holder = ?').run(id, holder),
  );
}

/**
 * Takes an unfinished run over for this process, unless another live process holds it. The check and the
 * take are one write transaction (BEGIN IMMEDIATE), so two processes cannot both take it.
 */
export function claimRun(db: Db, id: number, holder: string): Claim {
  return write(db, (): Claim => {
    const row = db
      .prepare(
        `SELECT r.status, p.holder, p.heartbeat FROM research_runs r
         LEFT JOIN run_progress p ON p.run_id = r.id WHERE r.id = ?`,
      )
      .get(id) as { status: string; holder: string | null; heartbeat: number | null } | undefined;
    if (!row) return { outcome: 'missing' };
    if (row.status !== 'unfinished' || row.heartbeat === null) return { outcome: 'done' };
    if (row.holder && !holderGone({ holder: row.holder, heartbeat: row.heartbeat }, Date.now(), RUN_STALE_MS))
      return { outcome: 'busy', holder: row.holder };
    db.prepare('UPDATE run_progress SET holder = ?, heartbeat = ? WHERE run_id = ?').run(
      holder,
      Date.now(),
      id,
    );
    return { outcome: 'claimed', progress: loadProgress(db, id)! };
  });
}

/** Everything an unfinished run has recorded; undefined when it has no progress (done, or no such run). */
export function loadProgress(db: Db, id: number): RunProgress | undefined {
  const row = db
    .prepare(
      `SELECT r.question, r.status, p.ledger_id, p.options, p.holder, p.heartbeat
       FROM research_runs r JOIN run_progress p ON p.run_id = r.id WHERE r.id = ?`,
    )
    .get(id) as
    | {
        question: string;
        status: 'done' | 'unfinished';
        ledger_id: string;
        options: string;
        holder: string | null;
        heartbeat: number;
      }
    | undefined;
  if (!row) return undefined;
  const plans = db.prepare('SELECT round, plan FROM run_plans WHERE run_id = ? ORDER BY round').all(id) as {
    round: number;
    plan: string;
  }[];
  const searches = db.prepare('SELECT query, results FROM run_searches WHERE run_id = ?').all(id) as {
    query: string;
    results: string;
  }[];
  const sources = db
    .prepare(
      `SELECT s.key, s.source, s.facts, t.body FROM run_sources s JOIN source_texts t ON t.hash = s.hash
       WHERE s.run_id = ? ORDER BY s.rowid`,
    )
    .all(id) as { key: string; source: string; facts: string | null; body: Buffer }[];
  return {
    id,
    question: row.question,
    status: row.status,
    ledgerId: row.ledger_id,
    options: JSON.parse(row.options) as Record<string, unknown>,
    holder: row.holder,
    heartbeat: row.heartbeat,
    plans: new Map(plans.map((p) => [p.round, JSON.parse(p.plan) as Record<string, unknown>])),
    searches: new Map(searches.map((s) => [s.query, JSON.parse(s.results) as unknown[]])),
    sources: new Map(
      sources.map((s) => [
        s.key,
        {
          source: JSON.parse(s.source) as Record<string, unknown>,
          text: inflateText(s.body),
          facts: s.facts,
        },
      ]),
    ),
  };
}

/** Drops a run's progress once it has answered (inside the caller's transaction). */
export function dropProgress(db: Db, id: number): void {
  for (const table of ['run_progress', 'run_plans', 'run_searches', 'run_sources'])
    db.prepare(`DELETE FROM ${table} WHERE run_id = ?`).run(id);
}
