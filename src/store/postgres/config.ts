import { userInfo } from 'node:os';
import type { PoolConfig } from 'pg';
import { parse } from 'pg-connection-string';
import { ConfigError, errorMessage } from '../../errors.js';
import { maskPassword, unencodedUserinfo, withoutPassword } from '../url.js';
import type { Target } from './errors.js';

// A postgres:// URL as libpq reads it: what the URL leaves out comes from the PG* variables (PGHOST,
// PGPORT, PGUSER, PGPASSWORD, PGDATABASE, PGSSLMODE, PGSSLROOTCERT), then libpq's defaults. sslmode has
// libpq's meaning (require encrypts, verify-full also checks the certificate), through pg's own parser.
// The other libpq parameters pg can honour are passed on (options, application_name, keepalives …);
// target_session_attrs is checked by openPostgres; an unknown parameter is refused, as libpq does.

/** Query parameters of a postgres:// URL that agent passes on or acts on (libpq's names). */
const KNOWN = new Set([
  'host',
  'hostaddr',
  'port',
  'user',
  'password',
  'dbname',
  'sslmode',
  'sslrootcert',
  'sslcert',
  'sslkey',
  'connect_timeout',
  'options',
  'application_name',
  'fallback_application_name',
  'client_encoding',
  'keepalives',
  'keepalives_idle',
  'target_session_attrs',
  'uselibpqcompat',
]);

/** target_session_attrs values, as libpq takes them: what the server must be. */
const SESSION_ATTRS = ['any', 'read-write', 'read-only', 'primary', 'standby', 'prefer-standby'];

/** The pool's settings and what to show the user (never the password). */
export function connectionConfig(
  url: string,
  env: NodeJS.ProcessEnv,
): { config: PoolConfig; target: Target; sessionAttrs: string } {
  const bad = (text: string, cause?: unknown) =>
    new ConfigError(`The database URL ${maskPassword(url)} cannot be used: ${text}.`, { cause });
  const unencoded = unencodedUserinfo(url);
  if (unencoded) throw new ConfigError(`${unencoded[0]!.toUpperCase()}${unencoded.slice(1)}.`);
  let withEnv = url;
  const query = url.includes('?') ? url.slice(url.indexOf('?') + 1) : '';
  const params = new URLSearchParams(query);
  const unknown = [...new Set(params.keys())].filter((k) => !KNOWN.has(k));
  if (unknown.length > 0)
    throw bad(
      `agent does not know the parameter${unknown.length === 1 ? '' : 's'} ${unknown.join(', ')} (it takes ${[...KNOWN].filter((k) => k !== 'password').join(', ')})`,
    );
  const sessionAttrs = params.get('target_session_attrs') ?? env.PGTARGETSESSIONATTRS ?? 'any';
  if (!SESSION_ATTRS.includes(sessionAttrs))
    throw bad(`target_session_attrs must be one of ${SESSION_ATTRS.join(', ')}`);
  const extra: string[] = [];
  if (!params.has('sslmode') && env.PGSSLMODE) extra.push(`sslmode=${encodeURIComponent(env.PGSSLMODE)}`);
  if (!params.has('sslrootcert') && env.PGSSLROOTCERT)
    extra.push(`sslrootcert=${encodeURIComponent(env.PGSSLROOTCERT)}`);
  if (extra.length > 0) withEnv += (url.includes('?') ? '&' : '?') + extra.join('&');
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(withEnv, { useLibpqCompat: true });
  } catch (error) {
    throw bad(maskPassword(errorMessage(error)), error);
  }
  const user = parsed.user || env.PGUSER || safeUserName();
  const host = parsed.host || env.PGHOST || 'localhost';
  const port = Number(parsed.port || env.PGPORT || 5432);
  const database = parsed.database || env.PGDATABASE || user;
  const password = parsed.password || env.PGPASSWORD;
  const timeout = Number(params.get('connect_timeout') ?? env.PGCONNECT_TIMEOUT ?? 10);
  const options = params.get('options') ?? env.PGOPTIONS;
  const encoding = params.get('client_encoding') ?? env.PGCLIENTENCODING;
  const idle = Number(params.get('keepalives_idle') ?? Number.NaN);
  const config: PoolConfig = {
    user,
    host,
    port,
    database,
    ...(password ? { password } : {}),
    ...(parsed.ssl !== undefined && parsed.ssl !== null ? { ssl: parsed.ssl as PoolConfig['ssl'] } : {}),
    application_name: params.get('application_name') ?? env.PGAPPNAME ?? 'agent',
    ...(params.has('fallback_application_name')
      ? { fallback_application_name: params.get('fallback_application_name')! }
      : {}),
    ...(options ? { options } : {}),
    ...(encoding ? { client_encoding: encoding } : {}),
    // libpq keeps TCP keepalives on unless keepalives=0: a server that vanished is noticed.
    keepAlive: params.get('keepalives') !== '0',
    ...(Number.isFinite(idle) && idle > 0 ? { keepAliveInitialDelayMillis: idle * 1000 } : {}),
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
    sessionAttrs,
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
