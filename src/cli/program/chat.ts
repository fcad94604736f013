import type { Command } from 'commander';
import { positiveInt, providerOption } from './options.js';

export function addChatCommand(program: Command): void {
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
      const { runChat } = await import('../commands/chat.js');
      await runChat({ ...options, db: command.optsWithGlobals().db });
    });
}
