import {
  accessSync,
  chmodSync,
  closeSync,
  constants,
  existsSync,
  fchmodSync,
  mkdirSync,
  openSync,
  readFileSync,
  statSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { AgentError, ConfigError, errorMessage } from '../../errors.js';
import { dataDirectory, defaultDatabasePath } from '../../paths.js';
import { StoreError, storeError, storeProblem, writeFailure } from '../errors.js';
import { isCurrent, migrate, pendingMigrations, refuseNewerSchema } from './migrations.js';

export type Db = Database.Database;

export interface OpenOptions {
  /** Told, in one line, when permissions found too open were tightened; the store itself never prints. */
  onNotice?: (message: string) => void;
  /** Where agent's own data folder is (`dataDirectory`); the environment of this process by default. */
  env?: NodeJS.ProcessEnv;
  /** False: pending migration steps are left for `migrate` (`agent db migrate` applies them itself). */
  migrate?: boolean;
}

/**
 * Opens (creating if needed) the one database file, in WAL mode, migrated to the current schema.
 * Chats hold what people type, so the files are kept private as ssh and gh keep theirs: folders this
 * creates and agent's own data folder are 0700, the database and its -wal and -shm files 0600.
 *
 * A database that cannot be written (file mode, read-only folder or mount) is opened read-only, and one on
 * a full disk without the shared memory WAL needs is opened for this process alone: in both cases with one
 * notice, so that everything that only reads still works.
 */
export function openDatabase(path: string = defaultDatabasePath(), options: OpenOptions = {}): Db {
  const onDisk = path !== ':memory:' && path !== '';
  // POSIX mode bits mean nothing on Windows.
  const posix = process.platform !== 'win32';
  const tightened: Tightened[] = [];
  let mode: Mode = 'shared';
  try {
    if (onDisk) {
      const folder = dirname(path);
      makeParents(folder);
      if (!writable(path)) mode = 'read-only';
      // Only agent's own folder is tightened: a --db in a shared folder must not lock others out of it.
      else if (posix && resolve(folder) === resolve(dataDirectory(options.env)))
        tighten(folder, 0o700, tightened);
      if (posix && mode === 'shared') createPrivate(path);
    }
  } catch (error) {
    throw cannotOpen(path, error);
  }
  try {
    return setUp(path, mode, tightened, options);
  } catch (error) {
    if (mode !== 'shared' || storeProblem(path, error) !== 'full') throw openFailure(path, error);
  }
  try {
    const db = setUp(path, 'alone', tightened, options);
    options.onNotice?.(
      `The disk holding ${path} is full: reading works, but nothing is saved until some space is freed.`,
    );
    return db;
  } catch (error) {
    throw openFailure(path, error);
  }
}

/** shared: the normal way; read-only: nothing is written; alone: no shared memory, for a full disk. */
type Mode = 'shared' | 'read-only' | 'alone';

function setUp(path: string, mode: Mode, tightened: Tightened[], options: OpenOptions): Db {
  let db: Db;
  try {
    db = mode === 'read-only' ? openReadOnly(path) : new Database(path, withAddon());
  } catch (error) {
    throw cannotOpen(path, error);
  }
  try {
    // The busy timeout comes first, so that even switching to WAL waits for another process instead of
    // failing. WAL lets readers and a writer work at once; writers queue for as long as this.
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    // Without shared memory, WAL keeps its index in this process's memory (and the file to itself).
    if (mode === 'alone') db.pragma('locking_mode = EXCLUSIVE');
    // Before WAL mode or permissions change anything: a newer version's database is left as it is.
    const current = isCurrent(db);
    if (!current) refuseNewerSchema(db);
    if (mode === 'read-only') {
      if (!current && pendingMigrations(db).length > 0)
        throw new ConfigError(
          `The database at ${path} is read-only and was made by an older version of agent: make it writable once so that it can be upgraded.`,
        );
      options.onNotice?.(`The database at ${path} is read-only: reading works, but nothing is saved.`);
      return db;
    }
    // A new file's pages are 8 KiB: SQLite keeps a row over half a page on a page of its own, and the
    // compressed text blocks (2–4 KiB) left 40% of 4 KiB pages empty. Said before anything is created;
    // a file that has tables keeps its size.
    db.pragma('page_size = 8192');
    enableWal(db);
    // SQLite gives -wal and -shm the database file's mode; files left more open by an older version
    // are tightened here, now that WAL mode has made them exist.
    const onDisk = path !== ':memory:' && path !== '';
    if (onDisk && process.platform !== 'win32')
      for (const file of [path, `${path}-wal`, `${path}-shm`]) tighten(file, 0o600, tightened);
    if (tightened.length > 0) options.onNotice?.(tightenedNotice(tightened.splice(0)));
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    if (options.migrate !== false) migrate(db);
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

/**
 * WAL needs a -shm file beside the database, which a read-only folder cannot get. When none is there and
 * no -wal file holds changes, the file is complete: it is read into memory instead, marked as a rollback
 * journal database (header bytes 18 and 19) since memory has no WAL. Nothing can write it meanwhile.
 */
function openReadOnly(path: string): Db {
  const db = new Database(path, withAddon({ readonly: true }));
  try {
    db.prepare('SELECT 1 FROM sqlite_master LIMIT 1').get();
    return db;
  } catch (error) {
    db.close();
    const wal = `${path}-wal`;
    if (
      (error as { code?: string }).code !== 'SQLITE_CANTOPEN' ||
      (existsSync(wal) && statSync(wal).size > 0)
    )
      throw error;
  }
  const image = readFileSync(path);
  if (image.length >= 100) image.fill(1, 18, 20);
  const copy = new Database(image, withAddon({ readonly: true }));
  copies.set(copy, path);
  return copy;
}

let addon: string | object | undefined;

/**
 * better-sqlite3's options with its compiled addon given: named by path, where it is built
 * (build/Release), else found by the package's own lookup run from the package's folder. Its default
 * lookup (the `bindings` package) reads the call stack, tries a dozen paths at every start, and inside
 * agent's bundle would look from the wrong folder. Every database agent opens goes through this.
 */
export function withAddon(options: Database.Options = {}): Database.Options {
  if (addon === undefined) {
    const load = createRequire(import.meta.url);
    try {
      addon = load.resolve('better-sqlite3/build/Release/better_sqlite3.node');
    } catch {
      const pkg = load.resolve('better-sqlite3/package.json');
      addon = createRequire(pkg)('bindings')({ bindings: 'better_sqlite3.node', module_root: dirname(pkg) });
    }
  }
  // Its types know only the path; the library takes a loaded addon too (since version 8).
  return { ...options, nativeBinding: addon as string };
}

/** Writers wait this long for one another: indexing commits in short batches, so a wait is short. */
const BUSY_TIMEOUT_MS = 30_000;

/** Whether this process may write the file (and, for WAL's -wal and -shm files, its folder). */
function writable(path: string): boolean {
  try {
    if (existsSync(path)) accessSync(path, constants.W_OK);
    accessSync(dirname(path), constants.W_OK);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return !(code === 'EACCES' || code === 'EPERM' || code === 'EROFS');
  }
}

function cannotOpen(path: string, error: unknown): ConfigError {
  return new ConfigError(
    `Cannot open the database at ${path}: ${errorMessage(error)}. Set AGENT_DB (or --db) to a writable file path.`,
    { cause: error },
  );
}

/** Damage and a full disk are said as such (exit 1); anything else makes the file unusable (exit 2). */
function openFailure(path: string, error: unknown): Error {
  if (error instanceof AgentError) return error;
  const explained = storeError(path, error);
  if (explained instanceof StoreError && explained.problem !== 'io') return explained;
  return new ConfigError(`The database at ${path} cannot be used: ${errorMessage(error)}.`, { cause: error });
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

/** The file a database was opened from (an in-memory copy of a read-only file is named ":memory:"). */
const copies = new WeakMap<Db, string>();
export const pathOf = (db: Db): string => copies.get(db) ?? db.name;

/**
 * The file another connection of this process may open to write beside `db`: one on disk, writable,
 * not held for one connection alone (a full disk's exclusive mode); else undefined.
 */
export function sharedFile(db: Db): string | undefined {
  if (db.memory || db.readonly || copies.has(db)) return undefined;
  return db.pragma('locking_mode', { simple: true }) === 'normal' ? db.name : undefined;
}

/** A failed write as one StoreError saying why (full disk, read-only, damaged); nothing was written. */
export function writeError(db: Db, error: unknown): Error {
  return writeFailure(pathOf(db), error);
}
