import type { Command } from 'commander';
import { providerOption } from './options.js';

export function addResearchCommand(program: Command): void {
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
      const { runResearchCommand } = await import('../commands/research.js');
      await runResearchCommand(words.join(' '), { ...options, db: command.optsWithGlobals().db });
    });
}
