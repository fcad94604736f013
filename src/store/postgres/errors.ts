import { AgentError, ConfigError, errorMessage } from '../../errors.js';
import { StoreError } from '../errors.js';

// What went wrong talking to the PostgreSQL server, said in one line with what to check. Failing to
// connect is a configuration mistake (exit 2: the URL, the password, the server's address or TLS); a
// failure once connected is a run-time one (exit 1: the connection dropped, the disk filled).

const codeOf = (error: unknown): string => String((error as { code?: unknown } | null)?.code ?? '');

/** Where the server is, as the user gave it: the URL without its password. */
export interface Target {
  location: string;
  host: string;
  port: number;
  database: string;
  user: string;
  sslmode?: string;
}

const TLS_CODES = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'ERR_SSL_WRONG_VERSION_NUMBER',
]);

/** A failure to connect (or to start using the connection) as one ConfigError saying what to check. */
export function connectFailure(target: Target, error: unknown): AgentError {
  if (error instanceof AgentError) return error;
  const code = codeOf(error);
  const message = errorMessage(error);
  const where = `${target.host}:${target.port}`;
  const say = (text: string) => new ConfigError(`PostgreSQL (${target.location}): ${text}`, { cause: error });
  if (code === 'ECONNREFUSED')
    return say(
      `nothing is listening at ${where}; is the server running, and are the host and port in the database URL right?`,
    );
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return say(`the host name ${target.host} is not known; check the host in the database URL.`);
  if (code === 'ETIMEDOUT' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH' || /timeout/i.test(message))
    return say(
      `no answer from ${where} in time; check the host and port, and that a firewall lets you reach the server.`,
    );
  if (code === '28P01')
    return say(
      `the server refused the password of user "${target.user}"; check the password in the URL or PGPASSWORD.`,
    );
  if (/password must be a string|no password/i.test(message))
    return say(
      `the server asks for a password and none was given for user "${target.user}"; put it in the URL (postgres://user:password@host/db) or PGPASSWORD.`,
    );
  if (code === '3D000')
    return say(
      `the database "${target.database}" does not exist on ${where}; create it (createdb ${target.database}) or fix its name in the URL.`,
    );
  if (code === '28000') {
    if (/no encryption/i.test(message))
      return say(
        `the server accepts this connection only over TLS; add sslmode=require (or verify-full with sslrootcert=<CA file>) to the URL. (${message})`,
      );
    return say(`the server does not let user "${target.user}" connect: ${message}.`);
  }
  if (/does not support SSL/i.test(message))
    return say(
      `the server does not accept TLS connections, but sslmode=${target.sslmode ?? 'require'} asks for one; enable TLS on the server, or remove sslmode from the URL on a trusted network.`,
    );
  if (TLS_CODES.has(code) || /certificate/i.test(message))
    return say(
      `the server's TLS certificate could not be verified (${message}); give its CA with sslrootcert=<file> in the URL, or use sslmode=require to encrypt without verifying.`,
    );
  if (code === 'ENOENT' && /sslrootcert|sslcert|sslkey|open/i.test(message))
    return say(`a TLS file named in the URL cannot be read: ${message}.`);
  return say(`cannot connect: ${message}.`);
}

/** Errors of a connection that was working: the server went away, the disk filled, the database is read-only. */
export function runFailure(location: string, error: unknown): unknown {
  if (error instanceof AgentError) return error;
  const code = codeOf(error);
  const message = errorMessage(error);
  if (
    code.startsWith('08') ||
    code === '57P01' ||
    code === '57P02' ||
    code === '57P03' ||
    code === 'ECONNRESET' ||
    code === 'ECONNREFUSED' ||
    code === 'EPIPE' ||
    code === 'ETIMEDOUT' ||
    code === 'EHOSTUNREACH' ||
    code === 'ENETUNREACH' ||
    /Connection terminated|connection timeout|timeout exceeded when trying to connect|not queryable/i.test(
      message,
    )
  )
    return new StoreError(
      'offline',
      location,
      `the connection to the PostgreSQL server (${location}) was lost: ${message}; what was saved before stays saved — try again when the server is back.`,
      { cause: error },
    );
  if (code === '53100')
    return new StoreError('full', location, `the PostgreSQL server (${location}) is out of disk space.`, {
      cause: error,
    });
  if (code === '25006')
    return new StoreError(
      'read-only',
      location,
      `the PostgreSQL server (${location}) accepts only reads (a standby, or default_transaction_read_only).`,
      { cause: error },
    );
  if (code === '42501')
    return new StoreError(
      'io',
      location,
      `the PostgreSQL role has no right to do this (${message}); a member's rights are db/grants.sql's, which the admin applies by running \`agent db migrate\` (never GRANT CREATE on the schema: see the README's team database section).`,
      { cause: error },
    );
  return error;
}
