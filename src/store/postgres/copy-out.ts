import { existsSync, statSync } from 'node:fs';
import { UsageError } from '../../errors.js';
import { openDatabase } from '../sqlite/open.js';
import type { CopyCounts } from './copy.js';
import type { Db } from './db.js';

// `agent db copy --to file.db`: the way back, a team database (what this role may read of it) into a
// new SQLite file. Rows keep their numbers (report #12 stays #12), so it is written only into a file
// that does not exist or is empty: there is nothing there to clash with, and a copy that fails leaves a
// file to delete. Unfinished research runs stay on the server (resume them there); the document index
// is made again from the files.

export interface CopyOutReport {
  from: string;
  to: string;
  copied: CopyCounts;
}

/** Each table: the columns both schemas share, and which rows. */
const TABLES: { table: string; columns: string; where?: string; kind?: keyof CopyOutReport['copied'] }[] = [
  {
    table: 'usage_ledger',
    kind: 'ledger',
    columns: `id, ts, command, run_id, step, provider, model, input_tokens, cache_read_tokens, cache_write_tokens,
      output_tokens, reasoning_tokens, price_input, price_output, price_cache_read, price_cache_write,
      price_source, cost_usd, cancelled, created_by`,
  },
  { table: 'notes', kind: 'notes', columns: 'id, content, title, tags, created_at, created_by' },
  {
    table: 'research_runs',
    kind: 'reports',
    columns: 'id, created_at, question, mode, answer, cost_usd, result, status, created_by',
    where: "status = 'done'",
  },
  {
    table: 'source_texts',
    columns: 'hash, chars, body',
    where:
      "hash IN (SELECT t.hash FROM run_texts t JOIN research_runs r ON r.id = t.run_id WHERE r.status = 'done')",
  },
  {
    table: 'run_texts',
    columns: 'run_id, n, hash',
    where: "run_id IN (SELECT id FROM research_runs WHERE status = 'done')",
  },
  {
    table: 'chat_sessions',
    kind: 'sessions',
    columns: 'id, run_id, created_at, updated_at, provider, model, first_message, created_by',
  },
  {
    table: 'chat_messages',
    kind: 'messages',
    columns: 'session_id, seq, exchange, provider, model, message',
  },
  { table: 'page_bodies', columns: 'hash, chars, body' },
  {
    table: 'page_cache',
    kind: 'pages',
    columns:
      'url, final_url, fetched_at, etag, last_modified, policy, extractor, title, kind, pages, body_hash',
  },
  {
    table: 'extraction_cache',
    kind: 'extractions',
    columns: 'source_hash, question, model, prompt_version, facts, created_at',
  },
];

/** A value as SQLite keeps it: json and jsonb arrive parsed and go back as JSON text, booleans as 0/1. */
function forSqlite(value: unknown): unknown {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value !== null && typeof value === 'object' && !Buffer.isBuffer(value)) return JSON.stringify(value);
  return value;
}

/** Refuses a file that holds anything: the copy keeps the server's numbers, which could clash there. */
export function checkNewFile(path: string): void {
  if (existsSync(path) && statSync(path).size > 0)
    throw new UsageError(
      `${path} already exists: db copy --to <file> writes a new SQLite file and never adds to one (rows keep their numbers).`,
    );
}

export async function copyToSqlite(db: Db, to: string): Promise<CopyOutReport> {
  checkNewFile(to);
  const report: CopyOutReport = {
    from: db.location,
    to,
    copied: { reports: 0, notes: 0, sessions: 0, messages: 0, ledger: 0, pages: 0, extractions: 0 },
  };
  // Read first, in one snapshot, so that the file is written in one short transaction.
  const read = await db.tx(async (c) => {
    await c.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
    const out: { table: string; columns: string[]; rows: unknown[][] }[] = [];
    for (const t of TABLES) {
      const found = await c.query({
        text: `SELECT ${t.columns} FROM ${t.table}${t.where ? ` WHERE ${t.where}` : ''}`,
        rowMode: 'array',
      });
      out.push({ table: t.table, columns: found.fields.map((f) => f.name), rows: found.rows as unknown[][] });
    }
    return out;
  });
  const file = openDatabase(to);
  try {
    file.transaction(() => {
      for (const [i, t] of read.entries()) {
        const insert = file.prepare(
          `INSERT INTO ${t.table} (${t.columns.join(', ')}) VALUES (${t.columns.map(() => '?').join(', ')})`,
        );
        for (const row of t.rows) insert.run(...row.map(forSqlite));
        const kind = TABLES[i]!.kind;
        if (kind) report.copied[kind] = t.rows.length;
      }
    })();
  } finally {
    file.close();
  }
  return report;
}
