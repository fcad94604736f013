import type { Command } from 'commander';
import { maxCostOption, positiveInt, providerOption, wholeNumber } from './options.js';

/** At most 10 results per search: what every supported search service returns in one page. */
const perSearch = wholeNumber(1, 10);

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
      'folder of documents: Markdown, text, HTML, PDF, Word (default: $AGENT_CONTENT_DIR, else the bundled samples)',
    )
    .option(
      '--report',
      'write a structured report (title, summary, sections, gaps) instead of a short answer',
    )
    .option(
      '--depth <n>',
      'rounds of reading: after each, a small model looks for gaps and reads more',
      positiveInt,
      1,
    )
    .option('--breadth <n>', 'documents and searches per plan or follow-up', positiveInt, 3)
    .option('--per-search <n>', 'results read per web search (1-10)', perSearch, 2)
    .option('--max-sources <n>', 'stop reading after this many sources', positiveInt, 20)
    .option('--concurrency <n>', 'extraction calls in flight at once', positiveInt, 16)
    .addOption(
      maxCostOption('stop collecting before the run could cost more than this many US dollars, then answer'),
    )
    .option('-o, --out <file>', 'also write the answer or report as Markdown')
    .option('--json', 'print the result as JSON for scripts')
    .option('--extractive', 'answer from local documents without any model, even when a key is set')
    .addHelpText(
      'after',
      `
Without an API key, research runs in extractive mode: it quotes the best-matching sentences of the
local documents, with citations, and says that no model was used. Every run is kept: see agent reports.

Examples:
  agent research "How much can a support agent refund without approval?"
  agent research "What is our travel hotel limit in London?" --out answer.md
  agent research --report --depth 2 "How do refunds, approvals and escalations fit together?" -o report.md
  agent research --content ~/wiki "Who approves a $20,000 purchase?" --json
  agent research --depth 3 --max-cost 0.50 "What do our policies say about gifts?"`,
    )
    .action(async (words: string[], options, command: Command) => {
      const { runResearchCommand } = await import('../commands/research.js');
      await runResearchCommand(words.join(' '), { ...options, db: command.optsWithGlobals().db });
    });
}
