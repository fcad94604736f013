import { ftsQuery } from './fts.js';
import { type Db, writeError } from './open.js';
import { type RunText, saveRunTexts } from './run-texts.js';

// Finished research runs: the question, mode, answer and cost as columns (to list and search them), and
// the whole result object as JSON, kept exactly as given so `agent reports --show` prints it again.

export interface RunSummary {
  id: number;
  /** ISO 8601. */
  createdAt: string;
  question: string;
  mode: string;
  /** Null when a model call had no known price. */
  costUsd: number | null;
}

export interface SavedRun extends RunSummary {
  /** The answer or report, as shown. */
  answer: string;
  /** The object `agent research --json` printed for the run. */
  result: Record<string, unknown>;
}

export interface NewRun {
  question: string;
  mode: string;
  answer: string;
  costUsd: number | null;
  result: object;
  /** Unix epoch milliseconds; now when absent. */
  createdAt?: number;
  /** The source texts the run used, kept with it (see run-texts.ts). */
  texts?: RunText[];
}

interface RunRow {
  id: number;
  created_at: number;
  question: string;
  mode: string;
  answer: string;
  cost_usd: number | null;
  result: string;
}

const toSummary = (r: Omit<RunRow, 'answer' | 'result'>): RunSummary => ({
  id: r.id,
  createdAt: new Date(r.created_at).toISOString(),
  question: r.question,
  mode: r.mode,
  costUsd: r.cost_usd,
});

/**
 * Keeps a finished run and its source texts, all or nothing; returns its id. A failed write (full disk,
 * read-only file) is one clear error.
 */
export function saveRun(db: Db, run: NewRun): number {
  try {
    // BEGIN IMMEDIATE: the write lock is taken (waiting out other writers) before anything is read, so a
    // snapshot that another process moved on from can never fail the save.
    return db
      .transaction(() => {
        const id = insertRun(db, run);
        if (run.texts?.length) saveRunTexts(db, id, run.texts);
        return id;
      })
      .immediate();
  } catch (error) {
    throw writeError(db, error);
  }
}

function insertRun(db: Db, run: NewRun): number {
  return db
    .prepare(
      `INSERT INTO research_runs (created_at, question, mode, answer, cost_usd, result)
         VALUES (?, ?, ?, ?, ?, ?) RETURNING id`,
    )
    .pluck()
    .get(
      run.createdAt ?? Date.now(),
      run.question,
      run.mode,
      run.answer,
      run.costUsd,
      JSON.stringify(run.result),
    ) as number;
}

/**
 * Newest first. With a query, only runs whose question or answer has every word of it (or, when none
 * has them all, any of them); the query is read as words, never as FTS5 syntax.
 */
export function listRuns(db: Db, options: { query?: string; limit?: number } = {}): RunSummary[] {
  const limit = options.limit ?? 50;
  if (options.query === undefined) {
    const rows = db
      .prepare(
        `SELECT id, created_at, question, mode, cost_usd FROM research_runs ORDER BY created_at DESC, id DESC LIMIT ?`,
      )
      .all(limit) as RunRow[];
    return rows.map(toSummary);
  }
  const words = options.query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  if (words.length === 0) return [];
  const search = db.prepare(
    `SELECT r.id, r.created_at, r.question, r.mode, r.cost_usd
     FROM research_runs_fts CROSS JOIN research_runs r ON r.id = research_runs_fts.rowid
     WHERE research_runs_fts MATCH ? ORDER BY r.created_at DESC, r.id DESC LIMIT ?`,
  );
  let rows = search.all(ftsQuery(words, 'AND'), limit) as RunRow[];
  if (rows.length === 0 && words.length > 1) rows = search.all(ftsQuery(words, 'OR'), limit) as RunRow[];
  return rows.map(toSummary);
}

/** The saved runs of exactly this question in this mode, newest first (a batch skips what they answered). */
export function runsOfQuestion(db: Db, question: string, mode: string): SavedRun[] {
  const rows = db
    .prepare('SELECT * FROM research_runs WHERE question = ? AND mode = ? ORDER BY created_at DESC, id DESC')
    .all(question, mode) as RunRow[];
  return rows.map(toSaved);
}

const toSaved = (row: RunRow): SavedRun => ({
  ...toSummary(row),
  answer: row.answer,
  result: JSON.parse(row.result) as Record<string, unknown>,
});

export function getRun(db: Db, id: number): SavedRun | undefined {
  const row = db.prepare('SELECT * FROM research_runs WHERE id = ?').get(id) as RunRow | undefined;
  return row && toSaved(row);
}

/** Removes a run; false when there was none with that id. */
export function deleteRun(db: Db, id: number): boolean {
  try {
    return db.prepare('DELETE FROM research_runs WHERE id = ?').run(id).changes > 0;
  } catch (error) {
    throw writeError(db, error);
  }
}
