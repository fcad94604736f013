import { createRequire } from 'node:module';
import type Database from 'better-sqlite3';
import { ConfigError, errorMessage } from '../../errors.js';
import { MINE } from './cache.js';
import { beforeKeys, type CopiedKind, claimKey, holdCopyLock, sourceKey } from './copy-keys.js';
import type { Client, Db } from './db.js';
import { rows } from './db.js';

// `agent db copy`: moves a SQLite history (reports and their texts, notes, chat sessions and their
// messages, the ledger, the caches) into a team's PostgreSQL database. The document index is left out:
// it is made again from the files. One copy runs at a time per target (copy-keys.ts). Ledger rows, notes
// and reports are known by a key of the source row recorded in the target, so a rerun skips exactly what
// was copied and two distinct rows of one millisecond are both kept; a session by its ledger run (and its
// messages by their order); a cached page by its URL; an extraction by its key. Each kind is copied in
// transactions of BATCH rows, so an interrupted copy keeps what it finished and the next one goes on.

/** Rows copied, by kind: the same in both directions of `agent db copy`. */
export interface CopyCounts {
  reports: number;
  notes: number;
  sessions: number;
  messages: number;
  ledger: number;
  pages: number;
  extractions: number;
}

export interface CopyReport {
  from: string;
  to: string;
  copied: CopyCounts;
  /** Rows already in the team database (copied before, or the same row made there). */
  skipped: number;
}

const BATCH = 500;

export type Sqlite = Database.Database;
type SqlRow = Record<string, unknown>;

/**
 * better-sqlite3 as installed, loaded at run time rather than from agent's bundle (where its addon
 * lookup would start from the wrong folder); only `db copy` needs it on this side.
 */
const SqliteDatabase = (): typeof Database =>
  createRequire(import.meta.url)('better-sqlite3') as typeof Database;

/** Opens the SQLite file read-only, as it is: a copy never changes its source. */
export function openSource(path: string): Sqlite {
  try {
    const source = new (SqliteDatabase())(path, { readonly: true, fileMustExist: true });
    source.prepare('SELECT 1 FROM sqlite_master LIMIT 1').get();
    return source;
  } catch (error) {
    throw new ConfigError(`Cannot read the SQLite database at ${path}: ${errorMessage(error)}.`, {
      cause: error,
    });
  }
}

const hasTable = (s: Sqlite, table: string): boolean =>
  Boolean(s.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table));
const hasColumn = (s: Sqlite, table: string, column: string): boolean =>
  (s.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).some((c) => c.name === column);

/** `column`, or `fallback AS column` where an older file lacks it. */
const col = (s: Sqlite, table: string, column: string, fallback: string) =>
  hasColumn(s, table, column) ? column : `${fallback} AS ${column}`;

/**
 * Rows known by their source key: one recorded already is skipped; `copy` inserts the others (with
 * `legacy`, unless an equal row older than the copy is there: one made before keys were recorded).
 */
async function keyedBatches(
  db: Db,
  kind: CopiedKind,
  items: SqlRow[],
  copy: (c: Client, row: SqlRow, legacy: number | null) => Promise<boolean>,
): Promise<[number, number]> {
  const legacy = await beforeKeys(db, kind);
  return inBatches(
    db,
    items,
    async (c, r) => (await claimKey(c, kind, sourceKey(kind, r))) && copy(c, r, legacy),
  );
}

async function inBatches(
  db: Db,
  items: SqlRow[],
  copy: (c: Client, row: SqlRow) => Promise<boolean>,
): Promise<[number, number]> {
  let copied = 0;
  let skipped = 0;
  for (let i = 0; i < items.length; i += BATCH) {
    const [done, already] = await db.tx(async (c) => {
      let n = 0;
      let m = 0;
      for (const row of items.slice(i, i + BATCH))
        if (await copy(c, row)) n++;
        else m++;
      return [n, m];
    });
    copied += done;
    skipped += already;
  }
  return [copied, skipped];
}

export async function copySqlite(source: Sqlite, from: string, db: Db): Promise<CopyReport> {
  const report: CopyReport = {
    from,
    to: db.location,
    copied: { reports: 0, notes: 0, sessions: 0, messages: 0, ledger: 0, pages: 0, extractions: 0 },
    skipped: 0,
  };
  const add = (kind: keyof CopyReport['copied'], [copied, skipped]: [number, number]) => {
    report.copied[kind] += copied;
    report.skipped += skipped;
  };
  const lock = await holdCopyLock(db);
  try {
    if (hasTable(source, 'usage_ledger')) add('ledger', await copyLedger(source, db));
    if (hasTable(source, 'notes')) add('notes', await copyNotes(source, db));
    if (hasTable(source, 'research_runs')) add('reports', await copyReports(source, db));
    if (hasTable(source, 'chat_sessions')) {
      const [sessions, skipped, messages] = await copySessions(source, db);
      add('sessions', [sessions, skipped]);
      report.copied.messages += messages;
    }
    if (hasTable(source, 'page_cache')) add('pages', await copyPages(source, db));
    if (hasTable(source, 'extraction_cache')) add('extractions', await copyExtractions(source, db));
  } finally {
    await lock.release();
  }
  return report;
}

async function copyLedger(s: Sqlite, db: Db): Promise<[number, number]> {
  const items = s
    .prepare(
      `SELECT id, ts, command, run_id, step, provider, model, input_tokens, cache_read_tokens, cache_write_tokens,
         output_tokens, reasoning_tokens, price_input, price_output, price_cache_read, price_cache_write,
         price_source, cost_usd, ${col(s, 'usage_ledger', 'cancelled', '0')}, ${col(s, 'usage_ledger', 'created_by', 'NULL')}
       FROM usage_ledger ORDER BY id`,
    )
    .all() as SqlRow[];
  return keyedBatches(db, 'ledger', items, async (c, r, legacy) => {
    const found = await rows(
      c,
      `INSERT INTO usage_ledger (ts, command, run_id, step, provider, model, input_tokens, cache_read_tokens,
         cache_write_tokens, output_tokens, reasoning_tokens, price_input, price_output, price_cache_read,
         price_cache_write, price_source, cost_usd, cancelled, created_by)
       SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19
       WHERE $20::bigint IS NULL OR NOT EXISTS (SELECT 1 FROM usage_ledger WHERE id <= $20 AND ts = $1 AND run_id = $3 AND step = $4
         AND provider = $5 AND model = $6 AND input_tokens = $7 AND cache_read_tokens = $8
         AND cache_write_tokens = $9 AND output_tokens = $10 AND cost_usd IS NOT DISTINCT FROM $17::float8
         AND created_by IS NOT DISTINCT FROM $19::text)
       RETURNING id`,
      [
        r.ts,
        r.command,
        r.run_id,
        r.step,
        r.provider,
        r.model,
        r.input_tokens,
        r.cache_read_tokens,
        r.cache_write_tokens,
        r.output_tokens,
        r.reasoning_tokens,
        r.price_input,
        r.price_output,
        r.price_cache_read,
        r.price_cache_write,
        r.price_source,
        r.cost_usd,
        Boolean(r.cancelled),
        r.created_by,
        legacy,
      ],
    );
    return found.length > 0;
  });
}

async function copyNotes(s: Sqlite, db: Db): Promise<[number, number]> {
  const items = s
    .prepare(
      `SELECT id, content, title, tags, created_at, ${col(s, 'notes', 'created_by', 'NULL')} FROM notes ORDER BY id`,
    )
    .all() as SqlRow[];
  return keyedBatches(db, 'note', items, async (c, r, legacy) => {
    const found = await rows(
      c,
      `INSERT INTO notes (content, title, tags, created_at, created_by) SELECT $1, $2, $3, $4, $5
       WHERE $6::bigint IS NULL OR NOT EXISTS (SELECT 1 FROM notes WHERE id <= $6 AND created_at = $4 AND content = $1
         AND created_by IS NOT DISTINCT FROM $5::text) RETURNING id`,
      [
        r.content,
        r.title,
        String(r.tags).replace(/(?<!\\)\\u0000/g, '\\ufffd'),
        r.created_at,
        r.created_by,
        legacy,
      ],
    );
    return found.length > 0;
  });
}

/** Saved reports with their source texts; an unfinished run stays where it is (resume it there). */
async function copyReports(s: Sqlite, db: Db): Promise<[number, number]> {
  const done = hasColumn(s, 'research_runs', 'status') ? "WHERE status = 'done'" : '';
  const items = s
    .prepare(
      `SELECT id, created_at, question, mode, answer, cost_usd, result, ${col(s, 'research_runs', 'created_by', 'NULL')}
       FROM research_runs ${done} ORDER BY id`,
    )
    .all() as SqlRow[];
  const texts = hasTable(s, 'run_texts')
    ? s.prepare(
        'SELECT t.n, t.hash, x.chars, x.body FROM run_texts t JOIN source_texts x ON x.hash = t.hash WHERE t.run_id = ?',
      )
    : undefined;
  return keyedBatches(db, 'report', items, async (c, r, legacy) => {
    const [row] = await rows<{ id: number }>(
      c,
      `INSERT INTO research_runs (created_at, question, mode, answer, cost_usd, result, created_by)
       SELECT $1, $2, $3, $4, $5, $6, $7
       WHERE $8::bigint IS NULL OR NOT EXISTS (SELECT 1 FROM research_runs WHERE id <= $8 AND created_at = $1 AND question = $2
         AND mode = $3 AND answer = $4 AND created_by IS NOT DISTINCT FROM $7::text)
       RETURNING id`,
      [r.created_at, r.question, r.mode, r.answer, r.cost_usd, r.result, r.created_by, legacy],
    );
    if (!row) return false;
    for (const t of (texts?.all(r.id) ?? []) as { n: number; hash: string; chars: number; body: Buffer }[]) {
      await c.query(
        'INSERT INTO source_texts (hash, chars, body) VALUES ($1, $2, $3) ON CONFLICT (hash) DO NOTHING',
        [t.hash, t.chars, t.body],
      );
      await c.query('INSERT INTO run_texts (run_id, n, hash) VALUES ($1, $2, $3)', [row.id, t.n, t.hash]);
    }
    return true;
  });
}

/** Sessions by their ledger run; messages a session gained since an earlier copy are appended. */
async function copySessions(s: Sqlite, db: Db): Promise<[number, number, number]> {
  const items = s
    .prepare(
      `SELECT id, run_id, created_at, updated_at, provider, model, first_message, ${col(s, 'chat_sessions', 'created_by', 'NULL')}
       FROM chat_sessions ORDER BY id`,
    )
    .all() as SqlRow[];
  const messagesOf = s.prepare(
    'SELECT seq, exchange, provider, model, message FROM chat_messages WHERE session_id = ? AND seq >= ? ORDER BY seq',
  );
  let messages = 0;
  const [sessions, skipped] = await inBatches(db, items, async (c, r) => {
    const [existing] = await rows<{ id: number; next: number }>(
      c,
      `SELECT s.id, coalesce((SELECT max(seq) + 1 FROM chat_messages m WHERE m.session_id = s.id), 0) AS next
       FROM chat_sessions s WHERE s.run_id = $1 FOR UPDATE`,
      [r.run_id],
    );
    const id =
      existing?.id ??
      (
        await rows<{ id: number }>(
          c,
          `INSERT INTO chat_sessions (run_id, created_at, updated_at, provider, model, first_message, created_by)
           VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
          [r.run_id, r.created_at, r.updated_at, r.provider, r.model, r.first_message, r.created_by],
        )
      )[0]!.id;
    const fresh = messagesOf.all(r.id, existing?.next ?? 0) as SqlRow[];
    for (const m of fresh)
      await c.query(
        'INSERT INTO chat_messages (session_id, seq, exchange, provider, model, message) VALUES ($1, $2, $3, $4, $5, $6)',
        [id, m.seq, m.exchange, m.provider, m.model, m.message],
      );
    if (existing && fresh.length > 0)
      await c.query('UPDATE chat_sessions SET updated_at = $1, provider = $2, model = $3 WHERE id = $4', [
        r.updated_at,
        r.provider,
        r.model,
        id,
      ]);
    messages += fresh.length;
    return !existing;
  });
  return [sessions, skipped, messages];
}

async function copyPages(s: Sqlite, db: Db): Promise<[number, number]> {
  const items = s
    .prepare(
      `SELECT p.url, p.final_url, p.fetched_at, p.etag, p.last_modified, p.policy, p.extractor, p.title, p.kind,
         p.pages, p.body_hash, b.chars, b.body
       FROM page_cache p JOIN page_bodies b ON b.hash = p.body_hash ORDER BY p.url`,
    )
    .all() as SqlRow[];
  return inBatches(db, items, async (c, r) => {
    // The caches are each person's own: a copied page becomes the copying role's.
    const [taken] = await rows(c, `SELECT 1 FROM page_cache WHERE url = $1 AND ${MINE}`, [r.url]);
    if (taken) return false;
    await c.query(
      'INSERT INTO page_bodies (hash, chars, body) VALUES ($1, $2, $3) ON CONFLICT (hash) DO NOTHING',
      [r.body_hash, r.chars, r.body],
    );
    const found = await rows(
      c,
      `INSERT INTO page_cache (url, final_url, fetched_at, etag, last_modified, policy, extractor, title, kind, pages,
         body_hash) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
         ON CONFLICT (owner_role, url) DO NOTHING RETURNING url`,
      [
        r.url,
        r.final_url,
        r.fetched_at,
        r.etag,
        r.last_modified,
        r.policy,
        r.extractor,
        r.title,
        r.kind,
        r.pages,
        r.body_hash,
      ],
    );
    return found.length > 0;
  });
}

async function copyExtractions(s: Sqlite, db: Db): Promise<[number, number]> {
  const items = s
    .prepare('SELECT source_hash, question, model, prompt_version, facts, created_at FROM extraction_cache')
    .all() as SqlRow[];
  return inBatches(db, items, async (c, r) => {
    const found = await rows(
      c,
      `INSERT INTO extraction_cache (source_hash, question, model, prompt_version, facts, created_at)
       VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING RETURNING source_hash`,
      [r.source_hash, r.question, r.model, r.prompt_version, r.facts, r.created_at],
    );
    return found.length > 0;
  });
}
