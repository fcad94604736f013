import { readFileSync } from 'node:fs';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { AgentError } from '../errors.js';
import { PROVIDERS } from '../providers/registry.js';

// Only commander is loaded up front: each command imports what it needs (SDKs, HTML parser, SQLite)
// when it runs, so `--help`, `--version` and `cost` start fast.

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

export function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a whole number of at least 1.');
  return n;
}

/** `--provider`, shared by every command that calls a model. */
const providerOption = () =>
  new Option(
    '--provider <name>',
    'model provider (default: $AGENT_PROVIDER, else the first API key set)',
  ).choices(PROVIDERS);

export function buildProgram(): Command {
  const program = new Command('agent')
    .description(
      'A research assistant for the shell: a tool-using chat and cited research over your documents and the web.',
    )
    .version(pkg.version, '-v, --version')
    .option('--db <path>', 'database file (default: $AGENT_DB, else $XDG_DATA_HOME/agent/agent.db)')
    .showSuggestionAfterError()
    .configureHelp({ showGlobalOptions: true })
    .exitOverride();

  program
    .command('chat')
    .description('Chat with a model that can calculate, read web pages, search and save notes.')
    .addOption(providerOption())
    .option('-m, --model <id>', 'model id (default: $AGENT_MODEL, else a per-provider default)')
    .option('--max-turns <n>', 'tool-using model turns allowed per message', positiveInt, 8)
    .option('-y, --yes', 'run tools that ask for confirmation without asking')
    .option(
      '--content <dir>',
      'documents for /research (default: $AGENT_CONTENT_DIR, else the bundled samples)',
    )
    .addHelpText(
      'after',
      `
Examples:
  agent chat                                   interactive chat with the configured provider
  printf 'What is 1234*5678?\\n' | agent chat    one answer per input line, for scripts
  agent chat --provider ollama --model qwen3   a local model through Ollama

In the chat: /help, /cost, /clear, /research <question>, /exit. Ctrl-C cancels a turn; Ctrl-D leaves.`,
    )
    .action(async (options, command: Command) => {
      const { runChat } = await import('./commands/chat.js');
      await runChat({ ...options, db: command.optsWithGlobals().db });
    });

  program
    .command('research')
    .argument('<question...>', 'what to find out (quotes optional)')
    .description('Answer a question with citations, from local documents and the web.')
    .addOption(providerOption())
    .option('--small-model <id>', 'model that plans (default: $AGENT_SMALL_MODEL, else per provider)')
    .option(
      '--large-model <id>',
      'model that extracts and writes (default: $AGENT_LARGE_MODEL, else per provider)',
    )
    .option(
      '--content <dir>',
      'folder of Markdown/text documents (default: $AGENT_CONTENT_DIR, else the bundled samples)',
    )
    .option('-o, --out <file>', 'also write the report as Markdown')
    .option('--json', 'print the result as JSON for scripts')
    .option('--extractive', 'answer from local documents without any model, even when a key is set')
    .addHelpText(
      'after',
      `
Without an API key, research runs in extractive mode: it quotes the best-matching sentences of the
local documents, with citations, and says that no model was used.

Examples:
  agent research "How much can a support agent refund without approval?"
  agent research "What is our travel hotel limit in London?" --out report.md
  agent research --content ~/wiki "Who approves a $20,000 purchase?" --json`,
    )
    .action(async (words: string[], options, command: Command) => {
      const { runResearchCommand } = await import('./commands/research.js');
      await runResearchCommand(words.join(' '), { ...options, db: command.optsWithGlobals().db });
    });

  program
    .command('cost')
    .description('Show what model calls have cost, from the usage ledger.')
    .addOption(
      new Option('--by <group>', 'group rows by').choices(['model', 'day', 'command']).default('model'),
    )
    .option('--since <when>', 'only calls since a duration ago (7d, 12h, 2w) or a date (2026-11-01)')
    .option('--json', 'print JSON for scripts')
    .addHelpText(
      'after',
      `
Examples:
  agent cost                      spend per model, all time
  agent cost --by day --since 7d  the last week, day by day
  agent cost --by command --json  machine-readable totals`,
    )
    .action(async (options, command: Command) => {
      const { runCost } = await import('./commands/cost.js');
      runCost({ ...options, db: command.optsWithGlobals().db });
    });

  program
    .command('notes')
    .argument('[query]', 'full-text search; without it, the newest notes')
    .description('List or search the notes saved from chat.')
    .option('-n, --limit <n>', 'at most this many notes', positiveInt, 50)
    .option('--delete <id>', 'delete the note with this number', positiveInt)
    .option('--json', 'print JSON for scripts')
    .addHelpText(
      'after',
      `
Examples:
  agent notes                 the newest notes
  agent notes "refund limit"  notes matching these words
  agent notes --json | jq '.[0].content'
  agent notes --delete 3        remove note #3`,
    )
    .action(async (query: string | undefined, options, command: Command) => {
      const { runNotes } = await import('./commands/notes.js');
      runNotes(query, { ...options, db: command.optsWithGlobals().db });
    });

  return program;
}

export async function main(argv: string[] = process.argv): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    return reportError(error);
  }
}

function reportError(error: unknown): number {
  if (error instanceof CommanderError) {
    // commander has already printed its message; help and version are not errors.
    return error.exitCode === 0 ? 0 : 2;
  }
  if (error instanceof AgentError) {
    process.stderr.write(`agent: ${error.message}\n`);
    return error.exitCode;
  }
  const detail =
    process.env.AGENT_DEBUG && error instanceof Error
      ? error.stack
      : String(error instanceof Error ? error.message : error);
  process.stderr.write(`agent: unexpected error: ${detail}\n`);
  if (!process.env.AGENT_DEBUG)
    process.stderr.write('agent: set AGENT_DEBUG=1 to see the stack trace, and please report it.\n');
  return 1;
}

// `agent … | head` closes the pipe early: that is the reader's choice, not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

process.exitCode = await main();
