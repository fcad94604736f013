import { RUN_SUMMARY_COLUMNS, type RunSummaryRow, toRunSummary } from '../rows.js';
import type { NewRun, RunSummary, SavedRun } from '../types.js';
import { ftsQuery } from './fts.js';
import { type Db, writeError } from './open.js';
import { dropProgress } from './run-progress.js';
import { saveRunTexts } from './run-texts.js';

// Research runs: the question, mode, answer and cost as columns (to list and search them), and the whole
// result object as JSON, kept exactly as given so `agent reports --show` prints it again. A model run that
// has not answered yet is kept 'unfinished', with its progress (see run-progress.ts) and no answer.

interface RunRow extends RunSummaryRow {
  answer: string;
  result: string;
}

/**
 * Keeps a finished run and its source texts, all or nothing; returns its id. A failed write (full disk,
 * read-only file) is one clear error.
 */
export function saveRun(db: Db, run: NewRun, user: string | null = null): number {
  try {
    // BEGIN IMMEDIATE: the write lock is taken (waiting out other writers) before anything is read, so a
    // snapshot that another process moved on from can never fail the save.
    return db
      .transaction(() => {
        const id = (run.id !== undefined && completeRun(db, run.id, run)) || insertRun(db, run, user);
        if (run.texts?.length) saveRunTexts(db, id, run.texts);
        if (run.id !== undefined) dropProgress(db, run.id);
        return id;
      })
      .immediate();
  } catch (error) {
    throw writeError(db, error);
  }
}

/** Completes an unfinished run; undefined when it is gone (deleted meanwhile: the run is kept anew). */
function completeRun(db: Db, id: number, run: NewRun): number | undefined {
  const changed = db
    .prepare(
      `UPDATE research_runs SET mode = ?, answer = ?, cost_usd = ?, result = ?, status = 'done'
       WHERE id = ? AND status = 'unfinished'`,
    )
    .run(run.mode, run.answer, run.costUsd, JSON.stringify(run.result), id).changes;
  return changed > 0 ? id : undefined;
}

function insertRun(db: Db, run: NewRun, user: string | null): number {
  return db
    .prepare(
      `INSERT INTO research_runs (created_at, question, mode, answer, cost_usd, result, created_by)
         VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`,
    )
    .pluck()
    .get(
      run.createdAt ?? Date.now(),
      run.question,
      run.mode,
      run.answer,
      run.costUsd,
      JSON.stringify(run.result),
      user,
    ) as number;
}

/**
 * Newest first. With a query, only runs whose question or answer has every word of it (or, when none
 * has them all, any of them); the query is read as words, never as FTS5 syntax.
 */
export function listRuns(
  db: Db,
  options: { query?: string; limit?: number; user?: string } = {},
): RunSummary[] {
  const limit = options.limit ?? 50;
  // '' is how rows kept before agent recorded people are shown, so it finds them too.
  const byUser = options.user === undefined ? '' : "AND coalesce(r.created_by, '') = @user";
  const params = { limit, user: options.user ?? '' };
  if (options.query === undefined) {
    const rows = db
      .prepare(
        `SELECT ${RUN_SUMMARY_COLUMNS} FROM research_runs r WHERE 1 ${byUser} ORDER BY r.created_at DESC, r.id DESC LIMIT @limit`,
      )
      .all(params) as RunRow[];
    return rows.map(toRunSummary);
  }
  const words = options.query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  if (words.length === 0) return [];
  const search = db.prepare(
    `SELECT ${RUN_SUMMARY_COLUMNS}
     FROM research_runs_fts CROSS JOIN research_runs r ON r.id = research_runs_fts.rowid
     WHERE research_runs_fts MATCH @match ${byUser} ORDER BY r.created_at DESC, r.id DESC LIMIT @limit`,
  );
  let rows = search.all({ ...params, match: ftsQuery(words, 'AND') }) as RunRow[];
  if (rows.length === 0 && words.length > 1)
    rows = search.all({ ...params, match: ftsQuery(words, 'OR') }) as RunRow[];
  return rows.map(toRunSummary);
}

/** The saved runs of exactly this question in this mode, newest first (a batch skips what they answered). */
export function runsOfQuestion(db: Db, question: string, mode: string): SavedRun[] {
  const rows = db
    .prepare(
      `SELECT ${RUN_SUMMARY_COLUMNS}, r.answer, r.result FROM research_runs r
         WHERE r.question = ? AND r.mode = ? AND r.status = 'done' ORDER BY r.created_at DESC, r.id DESC`,
    )
    .all(question, mode) as RunRow[];
  return rows.map(toSaved);
}

const toSaved = (row: RunRow): SavedRun => ({
  ...toRunSummary(row),
  answer: row.answer,
  result: JSON.parse(row.result) as Record<string, unknown>,
});

export function getRun(db: Db, id: number): SavedRun | undefined {
  const row = db
    .prepare(`SELECT ${RUN_SUMMARY_COLUMNS}, r.answer, r.result FROM research_runs r WHERE r.id = ?`)
    .get(id) as RunRow | undefined;
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
