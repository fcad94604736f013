import { defaultDatabasePath } from '../paths.js';
import { openSqlite } from './sqlite/store.js';
import type { Store } from './store.js';

// Which database a command uses: --db's value, else AGENT_DATABASE_URL, else AGENT_DB, else the default
// file. A postgres:// or postgresql:// URL is a team's PostgreSQL server (store/postgres/, loaded only
// then); anything else is the path of an SQLite file (store/sqlite/).

export interface OpenOptions {
  /** Told, in one line, what the user should know (permissions tightened, read-only); the store never prints. */
  onNotice?: (message: string) => void;
  /** The environment to read (AGENT_DATABASE_URL, AGENT_DB, AGENT_USER, the data folder); this process's by default. */
  env?: NodeJS.ProcessEnv;
  /** False: pending migration steps are left for `store.migrate()` (`agent db migrate`). */
  migrate?: boolean;
}

/** The database named by --db or the environment, as given (a URL or a file path). */
export function databaseTarget(target?: string, env: NodeJS.ProcessEnv = process.env): string {
  return target || env.AGENT_DATABASE_URL || env.AGENT_DB || defaultDatabasePath(env);
}

export const isPostgresUrl = (target: string): boolean => /^postgres(ql)?:\/\//i.test(target);

/** A URL or path as it may be shown: a URL's password replaced by ***. */
export function safeLocation(target: string): string {
  if (!isPostgresUrl(target)) return target;
  try {
    const url = new URL(target);
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return target.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
  }
}

export async function openStore(target?: string, options: OpenOptions = {}): Promise<Store> {
  const env = options.env ?? process.env;
  const where = databaseTarget(target, env);
  if (isPostgresUrl(where)) {
    // Loaded only for a team database: the driver is not needed on the SQLite path.
    const { openPostgres } = await import('./postgres/open.js');
    return openPostgres(where, { ...options, env });
  }
  return openSqlite(where, { ...options, env });
}
