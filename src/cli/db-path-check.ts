import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { ConfigError } from '../errors.js';
import { databaseTarget, isPostgresUrl } from '../store/open.js';

// What is wrong with a database path, said before SQLite opens it: SQLite calls a folder "unable to open
// database file" and any other file "not a database", which the store reports as damage (and suggests
// `db recover`, which cannot help a file that never was a database).

/** The first 16 bytes of every SQLite 3 database file. */
const HEADER = Buffer.from('SQLite format 3\0', 'latin1');

/** The first bytes of a file (fewer if it is shorter). */
function head(path: string, size: number): Buffer {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(size);
    return buf.subarray(0, readSync(fd, buf, 0, size, 0));
  } finally {
    closeSync(fd);
  }
}

/**
 * Throws a ConfigError when the database named by --db or the environment is a folder, or a file that is
 * not an SQLite database; a missing or empty file (a new database) and a postgres:// URL pass. What cannot
 * be read is left for the store to report as it does.
 */
export function checkDatabasePath(target?: string, env: NodeJS.ProcessEnv = process.env): void {
  const path = databaseTarget(target, env);
  if (isPostgresUrl(path)) return;
  let bytes: Buffer;
  try {
    if (statSync(path).isDirectory())
      throw new ConfigError(
        `The database ${path} is a folder: give the path of a database file, for example ${path.replace(/\/+$/, '')}/agent.db.`,
      );
    bytes = head(path, HEADER.length);
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    return;
  }
  if (bytes.length === 0 || bytes.equals(HEADER)) return;
  const text = !bytes.some((b) => b < 9 || (b > 13 && b < 32));
  throw new ConfigError(
    `${path} is not an SQLite database (it ${text ? 'holds text' : 'holds other data'}): give a database file, a new file name to start one, or a postgres:// URL.`,
  );
}
