import { ConfigError } from '../errors.js';
import { defaultDatabasePath } from '../paths.js';
import { openSqlite } from './sqlite/store.js';
import type { Store } from './store.js';
import { isPostgresUrl, maskPassword, urlScheme } from './url.js';

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

export { isPostgresUrl };

/** A URL or path as it may be shown: a URL's password replaced by ***. */
export const safeLocation = (target: string): string => (urlScheme(target) ? maskPassword(target) : target);

/** A URL of another scheme (a typo: postgress://) is refused: it must never become a file named after it. */
function refuseUnknownScheme(where: string): void {
  const scheme = urlScheme(where);
  if (scheme === undefined || isPostgresUrl(where)) return;
  throw new ConfigError(
    `The database ${maskPassword(where)} is not one agent can use: "${scheme}://" is not postgres:// or postgresql://, and a file path has no scheme. Fix the URL (AGENT_DATABASE_URL or --db).`,
  );
}

export async function openStore(target?: string, options: OpenOptions = {}): Promise<Store> {
  const env = options.env ?? process.env;
  const where = databaseTarget(target, env);
  refuseUnknownScheme(where);
  if (isPostgresUrl(where)) {
    // Loaded only for a team database: the driver is not needed on the SQLite path.
    const { openPostgres } = await import('./postgres/open.js');
    return openPostgres(where, { ...options, env });
  }
  return openSqlite(where, { ...options, env });
}
