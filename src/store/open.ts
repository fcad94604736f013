import { ConfigError, errorMessage } from '../errors.js';
import { defaultDatabasePath } from '../paths.js';
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

// A variable, so that type checking does not need the module: it is another part of agent's, and a
// build without it still runs everything on SQLite.
const POSTGRES_MODULE = './postgres/open.js';

interface PostgresModule {
  openPostgres(
    url: string,
    options: { onNotice?: (m: string) => void; env?: NodeJS.ProcessEnv; migrate?: boolean },
  ): Promise<Store>;
}

export async function openStore(target?: string, options: OpenOptions = {}): Promise<Store> {
  const env = options.env ?? process.env;
  const where = databaseTarget(target, env);
  if (isPostgresUrl(where)) {
    let module: PostgresModule;
    try {
      module = (await import(POSTGRES_MODULE)) as PostgresModule;
    } catch (error) {
      const missing = (error as { code?: string }).code === 'ERR_MODULE_NOT_FOUND';
      throw new ConfigError(
        `This build of agent cannot use PostgreSQL${missing ? '' : ` (${errorMessage(error)})`}: set AGENT_DATABASE_URL or --db to an SQLite file instead.`,
        { cause: error },
      );
    }
    return module.openPostgres(where, { ...options, env });
  }
  const { openSqlite } = await import('./sqlite/store.js');
  return openSqlite(where, { ...options, env });
}
