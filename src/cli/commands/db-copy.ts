import { existsSync } from 'node:fs';
import { ConfigError, UsageError } from '../../errors.js';
import { defaultDatabasePath } from '../../paths.js';
import { type CopyReport, copySqlite, openSource } from '../../store/postgres/copy.js';
import { openPostgres } from '../../store/postgres/open.js';

export interface DbCopyOptions {
  to?: string;
  json?: boolean;
  /** The SQLite file to copy from (--db), else AGENT_DB, else the default file. */
  db?: string;
}

const POSTGRES = /^postgres(ql)?:\/\//i;

/** `agent db copy --to postgres://…`: a SQLite history into a team database, again and again safely. */
export async function runDbCopy(options: DbCopyOptions): Promise<void> {
  const to = options.to?.trim() || process.env.AGENT_DATABASE_URL;
  if (!to)
    throw new UsageError('db copy needs the team database: agent db copy --to postgres://user@host:5432/db');
  if (!POSTGRES.test(to))
    throw new UsageError(`--to must be a postgres:// or postgresql:// URL (got "${to}").`);
  const from = options.db ?? defaultDatabasePath();
  if (POSTGRES.test(from))
    throw new UsageError('db copy copies from a SQLite file: name it with --db <file> (or AGENT_DB).');
  if (!existsSync(from)) throw new ConfigError(`There is no database at ${from}: nothing to copy.`);
  const source = openSource(from);
  let report: CopyReport;
  try {
    const store = await openPostgres(to, { onNotice: (m) => process.stderr.write(`agent: ${m}\n`) });
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

function describe(report: CopyReport): string {
  const c = report.copied;
  const total = c.reports + c.notes + c.sessions + c.messages + c.ledger + c.pages + c.extractions;
  const lines = [
    total === 0
      ? `Nothing new to copy from ${report.from} to ${report.to}.`
      : `Copied from ${report.from} to ${report.to}:`,
  ];
  if (total > 0)
    lines.push(
      `  reports      ${String(c.reports).padStart(7)}`,
      `  notes        ${String(c.notes).padStart(7)}`,
      `  sessions     ${String(c.sessions).padStart(7)} (${c.messages} message(s))`,
      `  ledger rows  ${String(c.ledger).padStart(7)}`,
      `  cached pages ${String(c.pages).padStart(7)}`,
      `  extractions  ${String(c.extractions).padStart(7)}`,
    );
  if (report.skipped > 0)
    lines.push(`Already in the team database: ${report.skipped} row(s), left as they are.`);
  lines.push('The document index is not copied: the next research run makes it from your files.');
  return lines.join('\n');
}
