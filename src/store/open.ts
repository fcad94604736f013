import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { AgentError, ConfigError, errorMessage } from '../errors.js';
import { migrate } from './migrations.js';
import { defaultDatabasePath } from './paths.js';

export type Db = Database.Database;

/** Opens (creating if needed) the one database file, in WAL mode, migrated to the current schema. */
export function openStore(path: string = defaultDatabasePath()): Db {
  let db: Db;
  try {
    if (path !== ':memory:') makeParents(dirname(path));
    db = new Database(path);
  } catch (error) {
    throw new ConfigError(
      `Cannot open the database at ${path}: ${errorMessage(error)}. Set AGENT_DB (or --db) to a writable file path.`,
      { cause: error },
    );
  }
  try {
    // The busy timeout comes first, so that even switching to WAL waits for another process instead of
    // failing. WAL lets a reader and a writer work at once.
    db.pragma('busy_timeout = 5000');
    enableWal(db);
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    migrate(db);
  } catch (error) {
    db.close();
    throw new ConfigError(`The database at ${path} cannot be used: ${errorMessage(error)}.`, {
      cause: error,
    });
  }
  return db;
}

/**
 * `mkdir -p` one level at a time: Node's recursive mkdir can spin forever under pseudo file systems
 * such as /proc, where a user's typo would otherwise hang the CLI.
 */
function makeParents(dir: string): void {
  if (existsSync(dir)) return;
  const parent = dirname(dir);
  if (parent !== dir) makeParents(parent);
  mkdirSync(dir);
}

/**
 * SQLite answers "database is locked" at once, without waiting on the busy timeout, when two processes
 * switch a new file to WAL together; so this one step is retried by hand.
 */
function enableWal(db: Db): void {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let attempt = 0; ; attempt++) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== 'SQLITE_BUSY' || attempt >= 100) throw error;
      Atomics.wait(pause, 0, 0, 20 + Math.random() * 30);
    }
  }
}

/**
 * A failed write (disk full, read-only file, I/O error) as one line that says what to do; nothing was
 * written, since every write is a single statement or transaction.
 */
export function writeError(db: Db, error: unknown): Error {
  const code = (error as { code?: string }).code ?? '';
  if (/^SQLITE_(FULL|READONLY|IOERR|CANTOPEN|CORRUPT|NOTADB)/.test(code)) {
    return new AgentError(
      `Could not write to the database at ${db.name}: ${errorMessage(error)}. Nothing was saved; free some space or point AGENT_DB elsewhere.`,
      { cause: error },
    );
  }
  return error instanceof Error ? error : new Error(String(error));
}
