import { type Command, InvalidArgumentError } from 'commander';
import { DURATION_EXPECTED, parseDuration } from '../../cache/duration.js';

/** `--older-than`: checked here, kept as written (the report repeats it). */
const age = (value: string): string => {
  if (parseDuration(value) === undefined) throw new InvalidArgumentError(`${DURATION_EXPECTED}.`);
  return value.trim();
};

export function addCacheCommand(program: Command): void {
  program
    .command('cache')
    .description('Show what the page and extraction caches hold, or empty them.')
    .option('--clear', 'remove the cached pages and extractions (all, or with --older-than the old ones)')
    .option('--older-than <age>', 'with --clear: only entries older than this: 30m, 12h, 7d, 2w', age)
    .option('--json', 'print JSON for scripts')
    .addHelpText(
      'after',
      `
Pages read by URL (research's web sources, chat's read_url, agent read) are cached with their
validators and used for --max-age (default 1d) before their server is asked again; the facts
extracted from a source are cached by source text, question, model and prompt version, so a run
over the same sources pays only for what is new. Both live in the database (--db, AGENT_DB).
An entry's age counts from when it was fetched, or last confirmed by its server, or extracted.

Examples:
  agent cache                          entries, size, oldest and newest, per cache
  agent cache --clear --older-than 7d  keep only the last week
  agent cache --clear                  empty both caches
  agent cache --json`,
    )
    .action(async (options, command: Command) => {
      const { runCache } = await import('../commands/cache.js');
      await runCache({ ...options, db: command.optsWithGlobals().db });
    });
}
