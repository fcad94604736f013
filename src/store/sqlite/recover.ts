import type Database from 'better-sqlite3';
import { errorMessage } from '../../errors.js';
import { StoreError } from '../errors.js';
import { openForReading } from './health.js';
import { type Db, openDatabase } from './open.js';

// Copies every readable row of a (damaged) database into a new one, table by table, in rowid order.
// better-sqlite3's SQLite has no recovery extension, so this reads as `.recover` would where the b-tree
// still leads somewhere: a read that meets a damaged page is retried further on, and the ids skipped
// are reported as lost. The document index is not copied: the next research run makes it from the files.

export interface TableRecovery {
  table: string;
  copied: number;
  /** Ranges of row ids that could not be read: the rows in them, if any, are lost. */
  lost: { from: number; to: number }[];
  /** Set when nothing of the table could be read. */
  error?: string;
}

export interface Recovery {
  from: string;
  to: string;
  tables: TableRecovery[];
}

/** Not copied: rebuilt from the files (the index) or kept by the new file itself (bookkeeping). */
const NOT_COPIED = new Set([
  'documents',
  'document_blocks',
  'passage_spans',
  'schema_migrations',
  'index_leases',
  'indexed_roots',
  'sqlite_sequence',
]);

const BATCH = 500;
const MAX_ROWID = 2 ** 53 - 1;

export function recoverDatabase(from: string, to: string): Recovery {
  const source = openForReading(from);
  let target: Db | undefined;
  try {
    let sourceTables: Map<string, string[]>;
    try {
      sourceTables = columnsOf(source);
    } catch (error) {
      throw new StoreError(
        'damaged',
        from,
        `the list of tables in ${from} cannot be read (${errorMessage(error)}), so no row can be found in it`,
        { cause: error },
      );
    }
    target = openDatabase(to);
    target.pragma('foreign_keys = OFF');
    const tables: TableRecovery[] = [];
    for (const [table, columns] of columnsOf(target)) {
      if (NOT_COPIED.has(table)) continue;
      const had = sourceTables.get(table);
      if (!had) continue;
      tables.push(
        copyTable(
          source,
          target,
          table,
          columns.filter((c) => had.includes(c)),
        ),
      );
    }
    return { from, to, tables };
  } finally {
    source.close();
    target?.close();
  }
}

/** The ordinary tables and their columns (full-text tables are filled by the new file's triggers). */
function columnsOf(db: Db): Map<string, string[]> {
  const names = db
    .prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%' AND name NOT LIKE 'sqlite_%'",
    )
    .pluck()
    .all() as string[];
  return new Map(
    names
      .filter((n) => !/_fts(_\w+)?$/.test(n))
      .map((n) => [n, (db.pragma(`table_info(${quote(n)})`) as { name: string }[]).map((c) => c.name)]),
  );
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

function copyTable(source: Db, target: Db, table: string, columns: string[]): TableRecovery {
  const result: TableRecovery = { table, copied: 0, lost: [] };
  const list = columns.map(quote).join(', ');
  const read = source.prepare(
    `SELECT rowid AS "rowid:", ${list} FROM ${quote(table)} WHERE rowid > ? ORDER BY rowid LIMIT ?`,
  );
  const insert = target.prepare(
    `INSERT OR IGNORE INTO ${quote(table)} (rowid, ${list}) VALUES (?, ${columns.map(() => '?').join(', ')})`,
  );
  const write = target.transaction((rows: Record<string, unknown>[]) => {
    for (const row of rows) {
      try {
        if (insert.run(row['rowid:'], ...columns.map((c) => row[c])).changes > 0) result.copied++;
      } catch {
        // A value damaged into something the schema refuses: the row counts as lost.
        const id = row['rowid:'] as number;
        result.lost.push({ from: id, to: id });
      }
    }
  });
  let after = Number.MIN_SAFE_INTEGER;
  // Rows are read in batches; after a batch fails, one at a time up to the damage, which is then skipped.
  let size = BATCH;
  for (;;) {
    let rows: Record<string, unknown>[];
    try {
      rows = read.all(after, size) as Record<string, unknown>[];
    } catch (error) {
      if (size > 1) {
        size = 1;
        continue;
      }
      size = BATCH;
      const resume = readableAfter(read, after);
      if (resume === undefined) {
        if (result.copied === 0 && result.lost.length === 0) result.error = errorMessage(error);
        result.lost.push({ from: after + 1, to: MAX_ROWID });
        break;
      }
      result.lost.push({ from: after + 1, to: resume });
      after = resume;
      continue;
    }
    if (rows.length === 0) break;
    write(rows);
    after = rows[rows.length - 1]!['rowid:'] as number;
  }
  return result;
}

/**
 * The smallest id past `after` from which reading works again, found by doubling the jump and then
 * halving back; undefined when nothing further on can be read.
 */
function readableAfter(read: Database.Statement, after: number): number | undefined {
  const works = (from: number) => {
    try {
      read.all(from, 1);
      return true;
    } catch {
      return false;
    }
  };
  let bad = after;
  let step = 1;
  let good: number | undefined;
  while (bad + step <= MAX_ROWID) {
    if (works(bad + step)) {
      good = bad + step;
      break;
    }
    bad += step;
    step *= 2;
  }
  if (good === undefined) return undefined;
  let found: number = good;
  while (found - bad > 1) {
    const mid: number = bad + Math.floor((found - bad) / 2);
    if (works(mid)) found = mid;
    else bad = mid;
  }
  return found;
}
