import type { Command } from 'commander';

export function addDbCommand(program: Command): void {
  const db = program
    .command('db')
    .description(
      'Show which database agent uses and what it holds, apply its migrations, or check and recover an SQLite file.',
    );
  db.command('status')
    .description(
      'Say which database is used (SQLite file or PostgreSQL server), its schema version, and its rows.',
    )
    .option('--json', 'print JSON for scripts')
    .addHelpText(
      'after',
      `
Nothing is changed: steps of a newer agent that the database has not applied yet are listed as pending.

Examples:
  agent db status
  AGENT_DATABASE_URL=postgres://alice@db.lan/team agent db status --json`,
    )
    .action(async (options, command: Command) => {
      const { runDbStatus } = await import('../commands/db-status.js');
      await runDbStatus({ ...options, db: command.optsWithGlobals().db });
    });
  db.command('migrate')
    .description('Apply the schema steps the database has not applied yet, and say which.')
    .option('--json', 'print JSON for scripts')
    .addHelpText(
      'after',
      `
Every command applies them on its own when it opens the database; this does it now, and says so. On a
team database it also applies the members' grants (db/grants.sql) when the role agent_member exists: the
admin runs it after each upgrade (docs/team.md).

Examples:
  agent db migrate
  agent --db ~/old.db db migrate --json`,
    )
    .action(async (options, command: Command) => {
      const { runDbMigrate } = await import('../commands/db-status.js');
      await runDbMigrate({ ...options, db: command.optsWithGlobals().db });
    });
  db.command('check')
    .description(
      "Run SQLite's integrity check on the database file and say what, if anything, is damaged (SQLite only).",
    )
    .option('--json', 'print JSON for scripts')
    .addHelpText(
      'after',
      `
Exit status: 0 when the database is sound, 1 when something in it is damaged.

Examples:
  agent db check
  agent --db ~/old.db db check --json`,
    )
    .action(async (options, command: Command) => {
      const { runDbCheck } = await import('../commands/db.js');
      runDbCheck({ ...options, db: command.optsWithGlobals().db });
    });
  db.command('recover')
    .description(
      'Copy every row that can still be read (reports, notes, chats, the cost ledger) into a new database file (SQLite only).',
    )
    .requiredOption('--to <file>', 'the new database file to write (must not exist yet)')
    .option('--json', 'print JSON for scripts')
    .addHelpText(
      'after',
      `
The document index is not copied: the next research run makes it again from your files. To go on with
the copy, point agent at it: AGENT_DB=<file> (or --db <file>), or move it over the damaged file.

Examples:
  agent db recover --to ~/agent-recovered.db
  agent --db ~/damaged.db db recover --to ~/agent.db --json`,
    )
    .action(async (options, command: Command) => {
      const { runDbRecover } = await import('../commands/db.js');
      runDbRecover({ ...options, db: command.optsWithGlobals().db });
    });
  db.command('copy')
    .description(
      'Copy this SQLite history (reports, notes, chats, the cost ledger, the caches) into a team PostgreSQL database, or a team database into a new SQLite file.',
    )
    .option(
      '--to <url or file>',
      'the team database, postgres://user@host:5432/db (default: AGENT_DATABASE_URL); or a new SQLite file to copy the team database (--db) into',
    )
    .option('--json', 'print JSON for scripts')
    .addHelpText(
      'after',
      `
Into a team database: the SQLite file is --db's (or AGENT_DB, or the default one); it is only read.
Running it again copies only what is new; one copy runs at a time per team database (another one says
so). Back out: --to names a new SQLite file and --db (or AGENT_DATABASE_URL) the team database; what your
role may read is copied, rows keeping their numbers. The document index is not copied: the next research
run makes it from your files.

Examples:
  agent db copy --to postgres://alice@db.example.com:5432/team
  agent --db ~/old.db db copy --to postgresql://alice@localhost/team --json
  agent --db postgres://alice@db.example.com/team db copy --to ~/team-copy.db`,
    )
    .action(async (options, command: Command) => {
      const { runDbCopy } = await import('../commands/db-copy.js');
      await runDbCopy({ ...options, db: command.optsWithGlobals().db });
    });
}
