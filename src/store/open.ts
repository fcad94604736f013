import { chmodSync, closeSync, existsSync, fchmodSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { AgentError, ConfigError, errorMessage } from '../errors.js';
import { dataDirectory, defaultDatabasePath } from '../paths.js';
import { migrate, refuseNewerSchema } from './migrations.js';

export type Db = Database.Database;

export interface OpenOptions {
  /** Told, in one line, when permissions found too open were tightened; the store itself never prints. */
  onNotice?: (message: string) => void;
  /** Where agent's own data folder is (`dataDirectory`); the environment of this process by default. */
  env?: NodeJS.ProcessEnv;
}

/**
 * Opens (creating if needed) the one database file, in WAL mode, migrated to the current schema.
 * Chats hold what people type, so the files are kept private as ssh and gh keep theirs: folders this
 * creates and agent's own data folder are 0700, the database and its -wal and -shm files 0600.
 */
export function openStore(path: string = defaultDatabasePath(), options: OpenOptions = {}): Db {
  const onDisk = path !== ':memory:' && path !== '';
  // POSIX mode bits mean nothing on Windows.
  const posix = process.platform !== 'win32';
  const tightened: Tightened[] = [];
  let db: Db;
  try {
    if (onDisk) {
      const folder = dirname(path);
      makeParents(folder);
      // Only agent's own folder is tightened: a --db in a shared folder must not lock others out of it.
      if (posix && resolve(folder) === resolve(dataDirectory(options.env))) tighten(folder, 0o700, tightened);
      if (posix) createPrivate(path);
    }
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
    // Before WAL mode or permissions change anything: a newer version's database is left as it is.
    refuseNewerSchema(db);
    enableWal(db);
    // SQLite gives -wal and -shm the database file's mode; files left more open by an older version
    // are tightened here, now that WAL mode has made them exist.
    if (onDisk && posix)
      for (const file of [path, `${path}-wal`, `${path}-shm`]) tighten(file, 0o600, tightened);
    if (tightened.length > 0) options.onNotice?.(tightenedNotice(tightened));
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
 * such as /proc, where a user's typo would otherwise hang the CLI. Each folder made is 0700 (as the
 * XDG base directory spec asks), set after creation because the umask may have cut the mode given.
 */
function makeParents(dir: string): void {
  if (existsSync(dir)) return;
  const parent = dirname(dir);
  if (parent !== dir) makeParents(parent);
  mkdirSync(dir, { mode: 0o700 });
  if (process.platform !== 'win32') chmodSync(dir, 0o700);
}

/** A new database file is made 0600 before SQLite opens it, so it is never readable by others. */
function createPrivate(path: string): void {
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return; // someone else's or an earlier run's
    throw error;
  }
  try {
    fchmodSync(fd, 0o600); // the umask can only have removed bits, but it may have removed ours
  } finally {
    closeSync(fd);
  }
}

interface Tightened {
  path: string;
  mode: number;
}

/** Removes group and other access from a file or folder of this user's; others' files are left alone. */
function tighten(path: string, mode: number, done: Tightened[]): void {
  let current: number;
  let owner: number;
  try {
    ({ mode: current, uid: owner } = statSync(path));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  if ((current & 0o077) === 0 || owner !== process.getuid?.()) return;
  chmodSync(path, mode);
  done.push({ path, mode });
}

/** "Tightened permissions of /d/agent.db to 0600: it holds your chats.", one line for all of them. */
function tightenedNotice(items: Tightened[]): string {
  const octal = (mode: number) => `0${mode.toString(8)}`;
  const groups = [...new Set(items.map((i) => i.mode))].map(
    (mode) =>
      `${items
        .filter((i) => i.mode === mode)
        .map((i) => i.path)
        .join(', ')} to ${octal(mode)}`,
  );
  const holds = items.length === 1 ? 'it holds' : 'they hold';
  return `Tightened permissions of ${groups.join(' and of ')}: ${holds} your chats.`;
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
