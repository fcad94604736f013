import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { AgentError } from '../errors.js';
import { addBatchCommand } from './program/batch.js';
import { addCacheCommand } from './program/cache.js';
import { addChatCommand } from './program/chat.js';
import { addCostCommand } from './program/cost.js';
import { addDbCommand } from './program/db.js';
import { addNotesCommand } from './program/notes.js';
import { nonEmpty } from './program/options.js';
import { addReadCommand } from './program/read.js';
import { addReportsCommand } from './program/reports.js';
import { addResearchCommand } from './program/research.js';
import { addSessionsCommand } from './program/sessions.js';
import { addWorkerCommand } from './program/worker.js';
import { explainStoreFailure } from './store-failure.js';
import { fitHelpToWidth, fitToTerminal } from './terminal-text.js';

// The front end: commander, the program definitions (program/, one file per command) and error reporting.
// Each command imports what it needs (SDKs, HTML parser, SQLite) when it runs, so `--help`, `--version`
// and `cost` start fast; and a command line that names its command defines that one alone.

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

/** Each command's name and the definition that adds it, in the order `--help` lists them. */
const COMMANDS: [name: string, add: (program: Command) => void][] = [
  ['chat', addChatCommand],
  ['research', addResearchCommand],
  ['reports', addReportsCommand],
  ['sessions', addSessionsCommand],
  ['cost', addCostCommand],
  ['cache', addCacheCommand],
  ['notes', addNotesCommand],
  ['read', addReadCommand],
  ['db', addDbCommand],
  ['worker', addWorkerCommand],
  ['batch', addBatchCommand],
];

/**
 * The program; given the command line (`process.argv`'s shape), only the definitions it can use: the
 * command its first argument (after `--db <path>`) names, or none for `--version` first. Anything else
 * (no command, `help`, a mistyped name, which is answered with the closest names) defines every command.
 */
export function buildProgram(argv?: readonly string[]): Command {
  const program = new Command('agent')
    .description(
      'A research assistant for the shell: a tool-using chat and cited research over your documents and the web.',
    )
    .version(pkg.version, '-v, --version')
    .option(
      '--db <path>',
      'database: an SQLite file or a postgres:// URL (default: $AGENT_DATABASE_URL, else $AGENT_DB, else $XDG_DATA_HOME/agent/agent.db)',
      nonEmpty,
    )
    .showSuggestionAfterError()
    .configureHelp({ showGlobalOptions: true })
    // A terminal that reports no width (a pseudo-terminal of 0 columns) gets the width a pipe gets.
    .configureOutput({
      getOutHelpWidth: () => process.stdout.columns || 80,
      getErrHelpWidth: () => process.stderr.columns || 80,
    })
    .exitOverride();

  const named = argv && commandNamed(argv.slice(2));
  for (const [name, add] of COMMANDS) if (named === undefined || name === named) add(program);
  // The notes after each command's options wrap to the help's width, as commander's own part does.
  fitHelpToWidth(program);
  return program;
}

/** The command `args` (the arguments after node and the script) run; '' for none; else undefined. */
function commandNamed(args: readonly string[]): string | undefined {
  if (args[0] === '-v' || args[0] === '--version') return '';
  const first = args[0] === '--db' ? args[2] : args[0]?.startsWith('--db=') ? args[1] : args[0];
  return COMMANDS.some(([name]) => name === first) ? first : undefined;
}

export async function main(argv: string[] = process.argv): Promise<number> {
  const program = buildProgram(argv);
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    return reportError(await realDatabaseProblem(error, program.opts().db));
  }
}

/**
 * A failure to use the database, said as what is really wrong when the path is a folder or a file of
 * another kind (SQLite says "unable to open database file" or "not a database", which reads as damage).
 * The check is loaded only here: it brings the store's path rules, which `--help` has no use for.
 */
async function realDatabaseProblem(error: unknown, db: string | undefined): Promise<unknown> {
  if (error instanceof CommanderError || !/database/i.test(errorText(error))) return error;
  const { checkDatabasePath } = await import('./db-path-check.js');
  try {
    checkDatabasePath(db);
  } catch (problem) {
    if (problem instanceof AgentError) return problem;
  }
  return error;
}

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

function reportError(thrown: unknown): number {
  const error = explainStoreFailure(thrown);
  if (error instanceof CommanderError) {
    // commander has already printed its message; help and version are not errors.
    return error.exitCode === 0 ? 0 : 2;
  }
  if (error instanceof AgentError) {
    say(`agent: ${error.message}`);
    return error.exitCode;
  }
  const detail =
    process.env.AGENT_DEBUG && error instanceof Error
      ? error.stack
      : String(error instanceof Error ? error.message : error);
  // A stack trace is printed as it is (its lines are indented by depth).
  if (process.env.AGENT_DEBUG) process.stderr.write(`agent: unexpected error: ${detail}\n`);
  else {
    say(`agent: unexpected error: ${detail}`);
    say('agent: set AGENT_DEBUG=1 to see the stack trace, and please report it.');
  }
  return 1;
}

/** One message on stderr: on a terminal, wrapped at spaces to its width (a word is never split). */
const say = (message: string) => process.stderr.write(`${fitToTerminal(message, process.stderr)}\n`);
