import Database from 'better-sqlite3';
import { errorMessage } from '../../errors.js';
import { StoreError, storeError, storeProblem } from '../errors.js';
import { type Db, pathOf, withAddon } from './open.js';

// The database's health: SQLite's integrity check, read as which tables are damaged; and the document
// index, which can always be made again from the files, cleared when it is the only damaged part.

/** The tables of the document index, with their indexes, triggers and full-text shadow tables. */
const INDEX_TABLES = [
  'documents',
  'document_blocks',
  'passage_spans',
  'documents_fts',
  'passages_fts',
  'passage_vectors',
  'vector_chunks',
  'vector_models',
];
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
  const path = pathOf(db);
  let rows: string[];
  try {
    rows = db.prepare('PRAGMA integrity_check(100)').pluck().all() as string[];
  } catch (error) {
    // A full-text table can stop the whole check at its first damaged page: each table on its own.
    const each = tableByTable(db);
    if (each.problems.length === 0) each.problems.push(errorMessage(error));
    return each;
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
    if (name) damaged.add(baseTable(name));
    // Pages left unused by the damage are harmless once the damaged tables are made again.
    else if (!/^Page \d+: never used$|^Page \d+ is never used$/.test(line)) unnamed = true;
  }
  return result(path, rows, damaged, unnamed);
}

const baseTable = (name: string) => name.replace(/_(data|idx|content|docsize|config)$/, '');

function result(path: string, problems: string[], damaged: Set<string>, unnamed: boolean): CheckResult {
  const damagedTables = [...damaged].sort();
  return {
    path,
    ok: false,
    problems,
    damagedTables,
    onlyDocumentIndex: !unnamed && damagedTables.length > 0 && damagedTables.every(isIndexTable),
  };
}

function tableByTable(db: Db): CheckResult {
  let names: string[];
  try {
    names = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[];
  } catch (error) {
    return result(pathOf(db), [`the list of tables cannot be read: ${errorMessage(error)}`], new Set(), true);
  }
  const problems: string[] = [];
  const damaged = new Set<string>();
  for (const name of names) {
    let rows: string[];
    try {
      rows = db
        .prepare(`PRAGMA integrity_check("${name.replace(/"/g, '""')}")`)
        .pluck()
        .all() as string[];
    } catch (error) {
      rows = [errorMessage(error)];
    }
    if (rows.length === 1 && rows[0] === 'ok') continue;
    damaged.add(baseTable(name));
    problems.push(...rows.map((r) => `${name}: ${r}`));
  }
  return result(pathOf(db), problems, damaged, damaged.size === 0);
}

/**
 * When the damage is only in the document index: removes its tables from the schema (dropping them
 * would read the damaged pages), gives their pages back with VACUUM, and makes them again, empty, so the
 * next refresh reads every file. False, changing nothing, when other data is damaged too.
 */
export function repairIndex(db: Db): boolean {
  if (!inspect(db).onlyDocumentIndex) return false;
  const objects = (
    db.prepare('SELECT type, name, tbl_name AS tbl, sql FROM sqlite_master').all() as {
      type: string;
      name: string;
      tbl: string;
      sql: string | null;
    }[]
  ).filter((o) => isIndexTable(o.tbl));
  const order = ['table', 'index', 'view', 'trigger'];
  // Shadow tables are made by their full-text table, automatic indexes by their table.
  const remake = objects
    .filter(
      (o) => o.sql !== null && !(o.type === 'table' && /_(data|idx|content|docsize|config)$/.test(o.name)),
    )
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
    for (const o of remake) db.exec(o.sql!);
    db.exec('DELETE FROM indexed_roots');
  }).immediate();
  return true;
}

/**
 * Runs a read of the document index. When it meets damage confined to the index, the index is cleared
 * (see repairIndex) and the error says that the next run makes it again; other damage is said as such.
 */
export function readIndex<T>(db: Db, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (storeProblem(pathOf(db), error) !== 'damaged') throw error;
    if (!db.readonly && repairIndex(db))
      throw new StoreError(
        'damaged',
        pathOf(db),
        `the document index in ${pathOf(db)} was damaged: it has been cleared, and the next run makes it again from your files`,
        { cause: error },
      );
    throw storeError(pathOf(db), error);
  }
}

/** repairIndex on the file at `path`; false when it cannot be written or more than the index is damaged. */
export function clearDamagedIndex(path: string): boolean {
  let db: Db | undefined;
  try {
    db = new Database(path, withAddon({ fileMustExist: true }));
    db.pragma('busy_timeout = 30000');
    return repairIndex(db);
  } catch {
    return false;
  } finally {
    db?.close();
  }
}

/** Opens a database file only to read it, for checking or recovering: no migration, no WAL switch. */
export function openForReading(path: string): Db {
  const db = new Database(path, withAddon({ readonly: true, fileMustExist: true }));
  db.pragma('busy_timeout = 30000');
  return db;
}
