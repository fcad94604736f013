import { ConfigError } from '../../errors.js';
import type { Store } from '../store.js';
import { currentUser } from '../user.js';
import { connectionConfig } from './config.js';
import { Db } from './db.js';
import { connectFailure } from './errors.js';
import { migrate } from './migrations.js';
import { type Identity, identify } from './security.js';
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
  const { config, target, sessionAttrs } = connectionConfig(url, env);
  const db = new Db(config, target.location);
  db.onNotice = options.onNotice;
  let who: Identity;
  try {
    // The first query makes the connection: every way of failing to connect shows up here.
    who = await identify(db);
  } catch (error) {
    await db.close().catch(() => {});
    throw connectFailure(target, error);
  }
  try {
    checkSessionAttrs(target.location, sessionAttrs, who.readOnly);
    if (options.migrate !== false && !who.readOnly) await migrate(db);
  } catch (error) {
    await db.close().catch(() => {});
    throw error;
  }
  if (who.readOnly)
    options.onNotice?.(
      `The database at ${target.location} accepts only reads (a standby, or default_transaction_read_only): reading works, but nothing is saved.`,
    );
  // Where each person has a role, the server records that role as the author: so does agent.
  return new PostgresStore(db, who.personal ? who.role : currentUser(env), who);
}

/** target_session_attrs with one host (pg connects to one): the server is what was asked for, or refused. */
function checkSessionAttrs(location: string, attrs: string, readOnly: boolean): void {
  const wantsWrites = attrs === 'read-write' || attrs === 'primary';
  const wantsReads = attrs === 'read-only' || attrs === 'standby';
  if ((wantsWrites && readOnly) || (wantsReads && !readOnly))
    throw new ConfigError(
      `PostgreSQL (${location}): target_session_attrs=${attrs} asks for a server that ${wantsWrites ? 'accepts writes' : 'accepts only reads'}, and this one ${readOnly ? 'accepts only reads' : 'accepts writes'}.`,
    );
}

export type { Store };
