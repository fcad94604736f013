import { RUN_SUMMARY_COLUMNS, type RunSummaryRow, toRunSummary } from '../rows.js';
import type { NewRun, RunSummary, RunsStore, SavedRun } from '../store.js';
import { inflateText, textHash } from '../texts.js';
import { notYours, refuseOthers } from '../user.js';
import { type Client, type Db, rows } from './db.js';
import { websearch, wordsOf } from './fts.js';
import { dropProgressAndTexts, dropUnusedTexts, hashesOf, linkRunTexts } from './run-texts.js';

// Saved research runs (reports) on PostgreSQL: columns to list and search them, the result object as json
// kept as written, and the source texts stored once. A run is saved, completed or deleted in one
// transaction.

interface RunRow extends RunSummaryRow {
  answer: string;
  result: Record<string, unknown>;
}

const toSaved = (r: RunRow): SavedRun => ({ ...toRunSummary(r), answer: r.answer, result: r.result });

export class PgRuns implements RunsStore {
  constructor(
    private readonly db: Db,
    private readonly user: string,
  ) {}

  async save(run: NewRun): Promise<number> {
    return this.db.tx(async (c) => {
      const id =
        (run.id !== undefined && (await this.complete(c, run.id, run))) || (await this.insert(c, run));
      await linkRunTexts(c, id, run.texts ?? []);
      // Its progress is done with (the run answered), and so are the texts only the progress used.
      if (run.id !== undefined) await dropProgressAndTexts(c, run.id);
      return id;
    });
  }

  /** Completes an unfinished run; undefined when it is gone (deleted meanwhile: the run is kept anew). */
  private async complete(c: Client, id: number, run: NewRun): Promise<number | undefined> {
    const done = await rows(
      c,
      `UPDATE research_runs SET mode = $1, answer = $2, cost_usd = $3, result = $4, status = 'done'
       WHERE id = $5 AND status = 'unfinished' RETURNING id`,
      [run.mode, run.answer, run.costUsd, JSON.stringify(run.result), id],
    );
    return done.length > 0 ? id : undefined;
  }

  private async insert(c: Client, run: NewRun): Promise<number> {
    const [row] = await rows<{ id: number }>(
      c,
      `INSERT INTO research_runs (created_at, question, mode, answer, cost_usd, result, created_by)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
      [
        run.createdAt ?? Date.now(),
        run.question,
        run.mode,
        run.answer,
        run.costUsd,
        JSON.stringify(run.result),
        this.user,
      ],
    );
    return row!.id;
  }

  /** Newest first; with a query, runs with every word of it (or, when none has them all, any). */
  async list(options: { query?: string; limit?: number; user?: string } = {}): Promise<RunSummary[]> {
    const params: unknown[] = [options.limit ?? 50];
    let where = 'true';
    if (options.user !== undefined) {
      params.push(options.user);
      where += ` AND coalesce(r.created_by, '') = $${params.length}`;
    }
    const order = 'ORDER BY r.created_at DESC, r.id DESC LIMIT $1';
    if (options.query === undefined)
      return (
        await this.db.query<RunRow>(
          `SELECT ${RUN_SUMMARY_COLUMNS} FROM research_runs r WHERE ${where} ${order}`,
          params,
        )
      ).map(toRunSummary);
    const words = wordsOf(options.query);
    if (words.length === 0) return [];
    const search = (text: string) =>
      this.db.query<RunRow>(
        `SELECT ${RUN_SUMMARY_COLUMNS} FROM research_runs r
         WHERE ${where} AND r.tsv @@ pg_catalog.websearch_to_tsquery('english', $${params.length + 1}) ${order}`,
        [...params, text],
      );
    let found = await search(websearch(words, 'and'));
    if (found.length === 0 && words.length > 1) found = await search(websearch(words, 'or'));
    return found.map(toRunSummary);
  }

  async ofQuestion(question: string, mode: string): Promise<SavedRun[]> {
    return (
      await this.db.query<RunRow>(
        `SELECT ${RUN_SUMMARY_COLUMNS}, r.answer, r.result FROM research_runs r
         WHERE r.question = $1 AND r.mode = $2 AND r.status = 'done' ORDER BY r.created_at DESC, r.id DESC`,
        [question, mode],
      )
    ).map(toSaved);
  }

  async get(id: number): Promise<SavedRun | undefined> {
    const row = await this.db.one<RunRow>(
      `SELECT ${RUN_SUMMARY_COLUMNS}, r.answer, r.result FROM research_runs r WHERE r.id = $1`,
      [id],
    );
    return row && toSaved(row);
  }

  /** Removes a run with its texts' links and progress; a text no run uses any more goes too. */
  async delete(id: number): Promise<boolean> {
    const found = await this.db.one<{ author: string | null; owner: string | null }>(
      'SELECT created_by AS author, owner_role AS owner FROM research_runs WHERE id = $1',
      [id],
    );
    if (!found) return false;
    refuseOthers('report', id, found.author, this.user);
    const deleted = await this.db.tx(async (c) => {
      const hashes = await hashesOf(c, id);
      const gone = await rows(c, 'DELETE FROM research_runs WHERE id = $1 RETURNING id', [id]);
      await dropUnusedTexts(c, hashes);
      return gone.length > 0;
    });
    // Row-level security kept it: written under another role.
    if (!deleted) throw notYours('report', id, found.owner ?? 'the admin', this.user);
    return true;
  }

  /**
   * A run's source texts. Each is checked against its hash: a text any member could have stored first
   * under the hash of one a run would store later is left out, never shown as the source.
   */
  async texts(runId: number): Promise<Map<number, string>> {
    const found = await this.db.query<{ n: number; body: Buffer; hash: string }>(
      `SELECT t.n, s.body, s.hash FROM run_texts t JOIN source_texts s ON s.hash = t.hash
       WHERE t.run_id = $1 ORDER BY t.n`,
      [runId],
    );
    const texts = new Map<number, string>();
    for (const r of found) {
      const text = inflateText(r.body);
      if (textHash(text) === r.hash) texts.set(r.n, text);
    }
    return texts;
  }
}
