import Database from 'better-sqlite3';
import { errorMessage } from '../errors.js';
import type { Db } from './open.js';

// The database's health: SQLite's integrity check, read as which tables are damaged; and the document
// index, which can always be made again from the files, cleared when it is the only damaged part.

/** The tables of the document index, with their indexes, triggers and full-text shadow tables. */
const INDEX_TABLES = ['documents', 'passage_spans', 'passages', 'documents_fts', 'passages_fts'];
const isIndexTable = (name: string): boolean =>
  INDEX_TABLES.includes(name.replace(/_(data|idx|content|docsize|config)$/, ''));

export interface CheckResult {
  path: string;
  ok: boolean;
  /** SQLite's own lines, as integrity_check gives them (at most 100). */
  problems: string[];
  /** Tables named by the problems; empty when none could be told. */
  damagedTables: string[];
  /** True when the damage is only in the document index, which is rebuilt from the files. */
  onlyDocumentIndex: boolean;
}

/** SQLite's integrity check of `db`, read as which tables are damaged. Never throws for damage. */
export function inspect(db: Db): CheckResult {
  const path = db.name;
  let rows: string[];
  try {
    rows = db.prepare('PRAGMA integrity_check(100)').pluck().all() as string[];
  } catch (error) {
    return { path, ok: false, problems: [errorMessage(error)], damagedTables: [], onlyDocumentIndex: false };
  }
  if (rows.length === 1 && rows[0] === 'ok') {
    return { path, ok: true, problems: [], damagedTables: [], onlyDocumentIndex: false };
  }
  const roots = new Map<number, string>();
  try {
    for (const r of db.prepare('SELECT rootpage, tbl_name FROM sqlite_master WHERE rootpage > 0').all() as {
      rootpage: number;
      tbl_name: string;
    }[])
      roots.set(r.rootpage, r.tbl_name);
  } catch {
    // The schema itself is unreadable: no table can be named.
  }
  const damaged = new Set<string>();
  let unnamed = false;
  for (const line of rows) {
    const tree = /^(?:Tree|On tree page) (\d+)/.exec(line);
    const fts = /FTS5 table \w+\.(\w+)/.exec(line);
    const name = tree ? roots.get(Number(tree[1])) : fts?.[1];
    if (name) damaged.add(name.replace(/_(data|idx|content|docsize|config)$/, ''));
    // Pages left unused by the damage are harmless once the damaged tables are made again.
    else if (!/^Page \d+: never used$|^Page \d+ is never used$/.test(line)) unnamed = true;
  }
  const damagedTables = [...damaged].sort();
  return {
    path,
    ok: false,
    problems: rows,
    damagedTables,
    onlyDocumentIndex: !unnamed && damagedTables.length > 0 && damagedTables.every(isIndexTable),
  };
}

/**
 * When the damage is only in the document index: removes its tables from the schema (dropping them
 * would read the damaged pages), gives their pages back with VACUUM, and makes them again, empty, so the
 * next refresh reads every file. False, changing nothing, when other data is damaged too.
 */
export function repairIndex(db: Db): boolean {
  if (!inspect(db).onlyDocumentIndex) return false;
  const objects = (
    db.prepare('SELECT type, name, tbl_name AS tbl, sql FROM sqlite_master WHERE sql IS NOT NULL').all() as {
      type: string;
      name: string;
      tbl: string;
      sql: string;
    }[]
  ).filter((o) => isIndexTable(o.tbl));
  const order = ['table', 'index', 'view', 'trigger'];
  // Shadow tables are made by their full-text table.
  const remake = objects
    .filter((o) => !(o.type === 'table' && /_(data|idx|content|docsize|config)$/.test(o.name)))
    .sort((a, b) => order.indexOf(a.type) - order.indexOf(b.type));
  const version = db.pragma('schema_version', { simple: true }) as number;
  db.unsafeMode(true);
  try {
    db.pragma('writable_schema = ON');
    db.transaction(() => {
      const drop = db.prepare('DELETE FROM sqlite_master WHERE name = ?');
      for (const o of objects) drop.run(o.name);
      // Other connections reload the schema when its version changes.
      db.pragma(`schema_version = ${version + 1}`);
    }).immediate();
  } finally {
    db.pragma('writable_schema = RESET');
    db.unsafeMode(false);
  }
  db.exec('VACUUM');
  db.transaction(() => {
    for (const o of remake) db.exec(o.sql);
    db.exec('DELETE FROM indexed_roots');
  }).immediate();
  return true;
}

/** Opens a database file only to read it, for checking or recovering: no migration, no WAL switch. */
export function openForReading(path: string): Db {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  db.pragma('busy_timeout = 30000');
  return db;
}
