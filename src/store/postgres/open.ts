import type { Store } from '../store.js';
import { currentUser } from '../user.js';
import { connectionConfig } from './config.js';
import { Db } from './db.js';
import { connectFailure } from './errors.js';
import { migrate } from './migrations.js';
import { PostgresStore } from './store.js';

export interface OpenPostgresOptions {
  /** Told, in one line, what the user should know (the store itself never prints). */
  onNotice?: (message: string) => void;
  /** Where PG* variables and AGENT_USER are read; this process's environment by default. */
  env?: NodeJS.ProcessEnv;
  /** Apply pending schema steps (the default); false leaves the schema as it is (`agent db status`). */
  migrate?: boolean;
}

/**
 * Connects to a team's PostgreSQL database (postgres:// or postgresql://) and brings its schema up to
 * date. A server that cannot be reached or refuses the connection is one ConfigError saying what to check.
 */
export async function openPostgres(url: string, options: OpenPostgresOptions = {}): Promise<PostgresStore> {
  const env = options.env ?? process.env;
  const { config, target } = connectionConfig(url, env);
  const db = new Db(config, target.location);
  let readOnly: boolean;
  try {
    // The first query makes the connection: every way of failing to connect shows up here.
    const row = await db.pool.query<{ ro: string }>("SELECT current_setting('transaction_read_only') AS ro");
    readOnly = row.rows[0]?.ro === 'on';
  } catch (error) {
    await db.close().catch(() => {});
    throw connectFailure(target, error);
  }
  try {
    if (options.migrate !== false && !readOnly) await migrate(db);
  } catch (error) {
    await db.close().catch(() => {});
    throw error;
  }
  if (readOnly)
    options.onNotice?.(
      `The database at ${target.location} is read-only: reading works, but nothing is saved.`,
    );
  return new PostgresStore(db, currentUser(env), readOnly);
}

export type { Store };
