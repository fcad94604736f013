import { userInfo } from 'node:os';
import type { PoolConfig } from 'pg';
import { parse } from 'pg-connection-string';
import { ConfigError, errorMessage } from '../../errors.js';
import type { Target } from './errors.js';

// A postgres:// URL as libpq reads it: what the URL leaves out comes from the PG* variables (PGHOST,
// PGPORT, PGUSER, PGPASSWORD, PGDATABASE, PGSSLMODE, PGSSLROOTCERT), then libpq's defaults. sslmode has
// libpq's meaning (require encrypts, verify-full also checks the certificate), through pg's own parser.

/** The pool's settings and what to show the user (never the password). */
export function connectionConfig(
  url: string,
  env: NodeJS.ProcessEnv,
): { config: PoolConfig; target: Target } {
  let withEnv = url;
  const query = url.includes('?') ? url.slice(url.indexOf('?') + 1) : '';
  const params = new URLSearchParams(query);
  const extra: string[] = [];
  if (!params.has('sslmode') && env.PGSSLMODE) extra.push(`sslmode=${encodeURIComponent(env.PGSSLMODE)}`);
  if (!params.has('sslrootcert') && env.PGSSLROOTCERT)
    extra.push(`sslrootcert=${encodeURIComponent(env.PGSSLROOTCERT)}`);
  if (extra.length > 0) withEnv += (url.includes('?') ? '&' : '?') + extra.join('&');
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(withEnv, { useLibpqCompat: true });
  } catch (error) {
    throw new ConfigError(
      `The database URL ${withoutPassword(url)} cannot be used: ${errorMessage(error)}.`,
      {
        cause: error,
      },
    );
  }
  const user = parsed.user || env.PGUSER || safeUserName();
  const host = parsed.host || env.PGHOST || 'localhost';
  const port = Number(parsed.port || env.PGPORT || 5432);
  const database = parsed.database || env.PGDATABASE || user;
  const password = parsed.password || env.PGPASSWORD;
  const timeout = Number(params.get('connect_timeout') ?? env.PGCONNECT_TIMEOUT ?? 10);
  const config: PoolConfig = {
    user,
    host,
    port,
    database,
    ...(password ? { password } : {}),
    ...(parsed.ssl !== undefined && parsed.ssl !== null ? { ssl: parsed.ssl as PoolConfig['ssl'] } : {}),
    application_name: 'agent',
    connectionTimeoutMillis: (Number.isFinite(timeout) && timeout > 0 ? timeout : 10) * 1000,
    // Small: one CLI process needs a connection or two; a team's server is shared by everyone's.
    max: 4,
    idleTimeoutMillis: 10_000,
    // An idle connection never keeps the process alive: a command ends when its work does.
    allowExitOnIdle: true,
  };
  const sslmode = params.get('sslmode') ?? env.PGSSLMODE;
  return {
    config,
    target: {
      location: withoutPassword(url),
      host,
      port,
      database,
      user,
      ...(sslmode ? { sslmode } : {}),
    },
  };
}

function safeUserName(): string {
  try {
    return userInfo().username;
  } catch {
    return 'postgres';
  }
}

/** The URL as it may be shown: its password (and any password= parameter) left out. */
export function withoutPassword(url: string): string {
  try {
    const u = new URL(url);
    u.password = '';
    u.searchParams.delete('password');
    return u.toString();
  } catch {
    return url.replace(/\/\/([^:/@]*):[^@/]*@/, '//$1@').replace(/([?&])password=[^&]*&?/, '$1');
  }
}
