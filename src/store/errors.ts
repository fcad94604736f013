import { statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import { AgentError, errorMessage } from '../errors.js';

// What went wrong with the database file, said as the real reason. Kept free of SQLite itself so the CLI
// can explain a failure without loading it.

/** `offline`: the connection to a database server was lost (it may come back: a chat retries). */
export type StoreProblem = 'full' | 'read-only' | 'damaged' | 'busy' | 'io' | 'offline';

/** A database read or write that failed for a reason outside agent: the message says which, and what to do. */
export class StoreError extends AgentError {
  constructor(
    readonly problem: StoreProblem,
    readonly path: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

const codeOf = (error: unknown): string => (error as { code?: string } | null)?.code ?? '';

/** Less than this much free space left means a failed write was the disk filling up. */
const NEARLY_FULL = 1 << 20;

/** True when the file system holding `path` has (next to) no space left for this user. */
export function diskFull(path: string): boolean {
  try {
    const { bavail, bsize } = statfsSync(dirname(path));
    return bavail * bsize < NEARLY_FULL;
  } catch {
    return false;
  }
}

/** The problem behind an SQLite or file-system error, or undefined when it is not about the storage. */
export function storeProblem(path: string, error: unknown): StoreProblem | undefined {
  const code = codeOf(error);
  if (code === 'ENOSPC' || code.startsWith('SQLITE_FULL')) return 'full';
  if (code.startsWith('SQLITE_READONLY') || code === 'EROFS') return 'read-only';
  if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB') return 'damaged';
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) return 'busy';
  // SQLite reports a failure to grow its shared-memory file as an I/O error, not as a full disk.
  if (code.startsWith('SQLITE_IOERR') || code === 'SQLITE_CANTOPEN')
    return path !== ':memory:' && path !== '' && diskFull(path) ? 'full' : 'io';
  return undefined;
}

const MESSAGES: Record<StoreProblem, (path: string, detail: string) => string> = {
  full: (path) =>
    `the disk holding ${path} is full; free some space, or set AGENT_DB to a file on another disk`,
  'read-only': (path) =>
    `the database ${path} is read-only; make it writable, or set AGENT_DB to another file`,
  damaged: (path, detail) =>
    `the database ${path} is damaged (${detail}); \`agent db check\` shows what, and \`agent db recover --to <file>\` copies out every row that can still be read`,
  busy: (path) =>
    `the database ${path} stayed locked by another agent process for too long; try again when it has finished`,
  io: (path, detail) => `the database ${path} could not be used: ${detail}`,
  offline: (path, detail) => `the connection to the database server ${path} was lost: ${detail}`,
};

/** The error as a StoreError when it is about the storage; any other error is returned as it is. */
export function storeError(path: string, error: unknown): unknown {
  if (error instanceof StoreError) return error;
  const problem = storeProblem(path, error);
  if (!problem) return error;
  return new StoreError(problem, path, MESSAGES[problem](path, errorMessage(error)), { cause: error });
}

/** The same for a write: always an Error, so that it can be thrown. */
export function writeFailure(path: string, error: unknown): Error {
  const e = storeError(path, error);
  return e instanceof Error ? e : new Error(String(e));
}
