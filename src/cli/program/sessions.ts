import { type Command, Option } from 'commander';
import { positiveInt } from './options.js';

export function addSessionsCommand(program: Command): void {
  program
    .command('sessions')
    .description('List saved chat sessions (most recently used first), show one, or delete one.')
    .option('-n, --limit <n>', 'at most this many sessions', positiveInt, 20)
    .addOption(new Option('--show <id>', 'print the conversation of session <id>').argParser(positiveInt))
    .addOption(
      new Option('--delete <id>', 'delete session <id> and its messages')
        .argParser(positiveInt)
        .conflicts('show'),
    )
    .option('--all', "everyone's sessions, not only yours (others' can be shown, not continued or deleted)")
    .option('--json', 'print JSON for scripts')
    .option('--raw', 'on a terminal, print replies as Markdown instead of rendering it (also AGENT_RAW=1)')
    .addHelpText(
      'after',
      `
Examples:
  agent sessions                  the latest sessions: number, when, model, exchanges, cost, first message
  agent sessions --show 3         the conversation of session #3, tool calls one line each
  agent sessions --show 3 --json  its messages as JSON
  agent chat --session 3          continue session #3 (agent chat --continue: the latest)
  agent sessions --delete 3       remove session #3
  agent sessions --all            everyone's sessions on a shared database, with whose each is

Sessions are their owner's (AGENT_USER, else your user name): continuing another person's session
starts a new one of yours from its history, and leaves theirs as it was.`,
    )
    .action(async (options, command: Command) => {
      const { runSessions } = await import('../commands/sessions.js');
      await runSessions({ ...options, db: command.optsWithGlobals().db });
    });
}
