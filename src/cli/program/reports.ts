import { type Command, Option } from 'commander';
import { nonEmpty, positiveInt } from './options.js';

export function addReportsCommand(program: Command): void {
  program
    .command('reports')
    .argument('[query]', 'full-text search over questions and answers; without it, the latest runs')
    .description('List the saved research runs (newest first), show one again, or delete one.')
    .option('-n, --limit <n>', 'at most this many runs', positiveInt, 20)
    .addOption(new Option('--show <id>', 'print the answer and sources of run <id>').argParser(positiveInt))
    .addOption(new Option('--delete <id>', 'delete run <id>').argParser(positiveInt).conflicts('show'))
    .option(
      '-o, --out <file>',
      'with --show: also write the run: HTML for .html/.htm, else Markdown (- for stdout, in place of the usual output)',
      nonEmpty,
    )
    .addOption(
      new Option('--format <format>', 'what --out writes, whatever its name').choices(['md', 'html']),
    )
    .option('--user <name>', 'only the runs this person made (AGENT_USER, else their user name)')
    .option('--raw', 'on a terminal, print the Markdown as it is instead of rendering it (also AGENT_RAW=1)')
    .option('--json', 'print JSON for scripts')
    .addHelpText(
      'after',
      `
Every agent research run is kept when it answers. A model run that ended before its answer (Ctrl-C, a
crash, an API failure) is listed as (unfinished): agent research --resume <id> continues it.

Examples:
  agent reports                     the latest runs: number, when, mode, cost, question
  agent reports "refund limit"      runs whose question or answer has these words
  agent reports --show 3            the answer (or report) of run #3 and its sources
  agent reports --show 3 -o run.md  the same, also written as Markdown
  agent reports --show 3 -o run.html  as a self-contained page with each citation's evidence
  agent reports --show 3 --json     the object agent research --json printed, plus its id
  agent reports --delete 3          remove run #3 (finished or not)
  agent reports --user alice        the runs alice made (on a shared database)`,
    )
    .action(async (query: string | undefined, options, command: Command) => {
      const { runReports } = await import('../commands/reports.js');
      await runReports(query, { ...options, db: command.optsWithGlobals().db });
    });
}
