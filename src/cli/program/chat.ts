import { type Command, Option } from 'commander';
import { maxAgeOption, maxCostOption, nonEmpty, positiveInt, providerOption } from './options.js';

export function addChatCommand(program: Command): void {
  program
    .command('chat')
    .description(
      'Chat with a model that can calculate, read web pages and PDFs, search, keep notes and use MCP tools.',
    )
    .addOption(providerOption())
    .option('-m, --model <id>', 'model id (default: $AGENT_MODEL, else a per-provider default)', nonEmpty)
    .option('--max-turns <n>', 'tool-using model turns allowed per message', positiveInt, 8)
    .option('-y, --yes', 'run tools that ask for confirmation without asking')
    .addOption(maxCostOption('refuse new messages once this chat has spent this many US dollars'))
    .addOption(maxAgeOption())
    .option(
      '--refresh',
      'read_url and /research fetch pages afresh, ignoring the cache (what they fetch is still cached)',
    )
    .option(
      '--content <dir>',
      'documents for /research (default: $AGENT_CONTENT_DIR, else the bundled samples)',
      nonEmpty,
    )
    .option(
      '--mcp <file>',
      'MCP servers to take tools from (default: $XDG_CONFIG_HOME/agent/mcp.json)',
      nonEmpty,
    )
    .option('-c, --continue', 'resume the most recently used session')
    .option('--raw', 'on a terminal, print replies as Markdown instead of rendering it (also AGENT_RAW=1)')
    .addOption(
      new Option('--session <id>', 'resume session <id> (see agent sessions)')
        .argParser(positiveInt)
        .conflicts('continue'),
    )
    .addHelpText(
      'after',
      `
Examples:
  agent chat                                   interactive chat with the configured provider
  printf 'What is 1234*5678?\\n' | agent chat   one answer per input line, for scripts
  agent chat --provider ollama --model qwen3   a local model through Ollama
  agent chat --continue                        pick up the latest conversation where it stopped
  agent chat --session 3 --provider openai     resume session #3 with another provider
  agent chat --mcp ./mcp.json --yes            add the tools of the MCP servers in mcp.json
  agent chat --max-cost 1                      stop sending messages once this chat has spent $1

Every answered message is saved as it completes; \`agent sessions\` lists the sessions. A resumed session
keeps its own provider and model unless --provider or --model is given.
In the chat: /help, /tools, /cost, /max-cost, /clear, /session, /research <question>, /exit. Ctrl-C cancels a turn; Ctrl-D leaves.
MCP servers start in the background; a stdio server gets only HOME, LOGNAME, PATH, SHELL, TERM and USER
plus its entry's "env", where \${VAR} takes VAR from your environment (see docs/chat.md).`,
    )
    .action(async (options, command: Command) => {
      // The chat's renderers read AGENT_RAW, so the flag is passed on as the variable.
      if (options.raw) process.env.AGENT_RAW = '1';
      const { runChat } = await import('../commands/chat.js');
      await runChat({ ...options, db: command.optsWithGlobals().db });
    });
}
