import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError, UsageError } from '../../errors.js';
import { databaseTarget, isPostgresUrl, safeLocation } from '../../store/open.js';
import { clearDamagedIndex, inspect, openForReading } from '../../store/sqlite/health.js';
import { type Recovery, recoverDatabase } from '../../store/sqlite/recover.js';
import { explainStoreFailure, rememberDatabase } from '../store-failure.js';
import { styleFor } from '../style.js';

export interface DbOptions {
  json?: boolean;
  db?: string;
}

/**
 * The database file named by --db, AGENT_DATABASE_URL or AGENT_DB, which must exist: checking never
 * creates one. Checking and recovering are for SQLite files: a PostgreSQL server keeps its own data.
 */
function existingDatabase(options: DbOptions, what: 'check' | 'recover'): string {
  const path = databaseTarget(options.db);
  if (isPostgresUrl(path))
    throw new ConfigError(
      `agent db ${what} works on SQLite files only, and the database is the PostgreSQL server ${safeLocation(path)}: its own tools (pg_dump, amcheck) check and copy it.`,
    );
  if (!existsSync(path))
    throw new ConfigError(`There is no database at ${path}: nothing to check or recover.`);
  rememberDatabase(path);
  return path;
}

export function runDbCheck(options: DbOptions): void {
  const path = existingDatabase(options, 'check');
  const db = openForReading(path);
  let result: ReturnType<typeof inspect>;
  try {
    result = inspect(db);
  } finally {
    db.close();
  }
  // The index is a copy of the files: when it is all that is damaged, it is cleared now and made again by
  // the next research run, so nothing needs the user's hand.
  const repaired = result.onlyDocumentIndex && clearDamagedIndex(path);
  if (!result.ok && !repaired) process.exitCode = 1;
  if (options.json) {
    process.stdout.write(`${JSON.stringify({ ...result, indexCleared: repaired }, null, 2)}\n`);
    return;
  }
  const style = styleFor(process.stdout);
  if (result.ok) {
    process.stdout.write(`${style.green('ok')}: ${path} passed SQLite's integrity check.\n`);
    return;
  }
  const lines = [`${style.red('damaged')}: ${path} failed SQLite's integrity check.`];
  if (result.damagedTables.length) lines.push(`Damaged tables: ${result.damagedTables.join(', ')}.`);
  lines.push(
    repaired
      ? 'Only the document index was damaged: it has been cleared, and the next `agent research` makes it again from your files.'
      : `To keep your reports, notes and chats: agent db recover --to <new file>, then use that file (AGENT_DB or --db).`,
  );
  lines.push('', 'SQLite says:', ...result.problems.map((p) => `  ${p}`));
  process.stdout.write(`${lines.join('\n')}\n`);
}

export function runDbRecover(options: DbOptions & { to: string }): void {
  if (!options.to.trim()) throw new UsageError('--to needs a file name.');
  const path = existingDatabase(options, 'recover');
  const to = options.to;
  if (resolve(to) === resolve(path))
    throw new UsageError('--to must name a new file, not the database itself.');
  if (existsSync(to))
    throw new UsageError(`${to} already exists: recover writes a new file and never replaces one.`);
  let recovery: Recovery;
  try {
    recovery = recoverDatabase(path, to);
  } catch (error) {
    throw explainStoreFailure(error);
  }
  if (options.json) {
    process.stdout.write(`${JSON.stringify(recovery, null, 2)}\n`);
    return;
  }
  const lines = recovery.tables.map((t) => {
    const lost = t.lost.length
      ? `; unreadable: ${t.lost.map((l) => (l.from === l.to ? `row ${l.from}` : `rows ${l.from}–${l.to}`)).join(', ')}`
      : '';
    return `  ${t.table.padEnd(16)} ${String(t.copied).padStart(7)} row(s) copied${lost}${t.error ? ` (${t.error})` : ''}`;
  });
  const lostAny = recovery.tables.some((t) => t.lost.length > 0);
  process.stdout.write(
    `${[
      `Copied what could be read from ${path} to ${to}:`,
      ...lines,
      lostAny
        ? 'Rows in the unreadable ranges (if there were any) are lost.'
        : 'Every row of these tables was read.',
      'The document index is made again from your files by the next research run.',
      `To use the copy: AGENT_DB=${to} (or --db ${to}).`,
    ].join('\n')}\n`,
  );
}
