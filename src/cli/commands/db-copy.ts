import { existsSync } from 'node:fs';
import { ConfigError, UsageError } from '../../errors.js';
import { defaultDatabasePath } from '../../paths.js';
import type { CopyCounts } from '../../store/postgres/copy.js';
import { isPostgresUrl, maskPassword, urlScheme } from '../../store/url.js';

export interface DbCopyOptions {
  to?: string;
  json?: boolean;
  /** The database to copy from (--db), else AGENT_DATABASE_URL or AGENT_DB, else the default file. */
  db?: string;
}

const notice = (m: string) => process.stderr.write(`agent: ${m}\n`);

/**
 * `agent db copy --to postgres://…`: a SQLite history into a team database, again and again safely;
 * `agent --db postgres://… db copy --to file.db`: a team database into a new SQLite file.
 */
export async function runDbCopy(options: DbCopyOptions): Promise<void> {
  const to = options.to?.trim() || process.env.AGENT_DATABASE_URL;
  if (!to)
    throw new UsageError('db copy needs the team database: agent db copy --to postgres://user@host:5432/db');
  if (!isPostgresUrl(to)) {
    if (urlScheme(to) !== undefined)
      throw new UsageError(
        `--to must be a postgres:// or postgresql:// URL, or a new SQLite file (got "${maskPassword(to)}").`,
      );
    return toSqlite(options, to);
  }
  const from = options.db ?? process.env.AGENT_DB ?? defaultDatabasePath();
  if (isPostgresUrl(from))
    throw new UsageError('db copy copies from a SQLite file: name it with --db <file> (or AGENT_DB).');
  if (!existsSync(from)) throw new ConfigError(`There is no database at ${from}: nothing to copy.`);
  const { copySqlite, openSource } = await import('../../store/postgres/copy.js');
  const { openPostgres } = await import('../../store/postgres/open.js');
  const source = openSource(from);
  let report: Awaited<ReturnType<typeof copySqlite>>;
  try {
    const store = await openPostgres(to, { onNotice: notice });
    try {
      report = await copySqlite(source, from, store.db);
    } finally {
      await store.close();
    }
  } finally {
    source.close();
  }
  if (options.json) {
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    return;
  }
  process.stdout.write(`${describe(report)}\n`);
}

/** The team database (--db or AGENT_DATABASE_URL) into a new SQLite file. */
async function toSqlite(options: DbCopyOptions, to: string): Promise<void> {
  const from = options.db ?? process.env.AGENT_DATABASE_URL;
  if (!from || !isPostgresUrl(from))
    throw new UsageError(
      `db copy --to ${to} copies a team database into a new SQLite file: name the team database with --db postgres://… (or AGENT_DATABASE_URL).`,
    );
  const { checkNewFile, copyToSqlite } = await import('../../store/postgres/copy-out.js');
  checkNewFile(to);
  const { openPostgres } = await import('../../store/postgres/open.js');
  const store = await openPostgres(from, { onNotice: notice });
  let report: Awaited<ReturnType<typeof copyToSqlite>>;
  try {
    report = await copyToSqlite(store.db, to);
  } finally {
    await store.close();
  }
  if (options.json) {
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    return;
  }
  process.stdout.write(
    `${[
      `Copied from ${report.from} to ${report.to}:`,
      ...counts(report.copied),
      'Unfinished research runs stay on the server; the next research run makes the document index from your files.',
      `To use the copy: AGENT_DB=${to} (or --db ${to}).`,
    ].join('\n')}\n`,
  );
}

type Counts = CopyCounts;

const counts = (c: Counts): string[] => [
  `  reports      ${String(c.reports).padStart(7)}`,
  `  notes        ${String(c.notes).padStart(7)}`,
  `  sessions     ${String(c.sessions).padStart(7)} (${c.messages} message(s))`,
  `  ledger rows  ${String(c.ledger).padStart(7)}`,
  `  cached pages ${String(c.pages).padStart(7)}`,
  `  extractions  ${String(c.extractions).padStart(7)}`,
];

function describe(report: { from: string; to: string; copied: Counts; skipped: number }): string {
  const c = report.copied;
  const total = c.reports + c.notes + c.sessions + c.messages + c.ledger + c.pages + c.extractions;
  const lines = [
    total === 0
      ? `Nothing new to copy from ${report.from} to ${report.to}.`
      : `Copied from ${report.from} to ${report.to}:`,
  ];
  if (total > 0) lines.push(...counts(c));
  if (report.skipped > 0)
    lines.push(`Already in the team database: ${report.skipped} row(s), left as they are.`);
  lines.push('The document index is not copied: the next research run makes it from your files.');
  return lines.join('\n');
}
