import type { Command } from 'commander';
import { positiveInt } from './options.js';

export function addNotesCommand(program: Command): void {
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
      const { runNotes } = await import('../commands/notes.js');
      await runNotes(query, { ...options, db: command.optsWithGlobals().db });
    });
}
