import { type Command, InvalidArgumentError, Option } from 'commander';
import { UsageError } from '../../errors.js';
import { PERIOD_HINT, parseDomain, parsePeriod } from '../../web/search/filters.js';
import {
  maxAgeOption,
  maxCostOption,
  nonEmpty,
  positiveInt,
  providerOption,
  wholeNumber,
} from './options.js';

/** At most 10 results per search: what every supported search service returns in one page. */
const perSearch = wholeNumber(1, 10);

/** A repeatable domain option: each use adds one (a URL or `www.` form is cut to its host). */
const domains = (value: string, previous: string[] = []): string[] => {
  const domain = parseDomain(value);
  if (!domain) throw new InvalidArgumentError(`expected a domain such as example.com, not "${value}".`);
  return previous.includes(domain) ? previous : [...previous, domain];
};

const period = (value: string): string => {
  if (!parsePeriod(value)) throw new InvalidArgumentError(`expected ${PERIOD_HINT}.`);
  return value.trim().toLowerCase();
};

export function addResearchCommand(program: Command): void {
  program
    .command('research')
    .argument('[question...]', 'what to find out (quotes optional); none with --batch or --resume')
    .description('Answer a question with citations, from local documents and the web.')
    .addOption(providerOption())
    .option(
      '--small-model <id>',
      'model that plans (default: $AGENT_SMALL_MODEL, else per provider)',
      nonEmpty,
    )
    .option(
      '--large-model <id>',
      'model that extracts and writes (default: $AGENT_LARGE_MODEL, else per provider)',
      nonEmpty,
    )
    .option(
      '--content <dir>',
      'folder of documents: Markdown, text, HTML, PDF, Word (default: $AGENT_CONTENT_DIR, else the bundled samples)',
      nonEmpty,
    )
    .option(
      '--report',
      'write a structured report (title, summary, sections, gaps) instead of a short answer; needs a model',
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
    .option(
      '-o, --out <file>',
      'also write the answer or report: HTML for .html/.htm, else Markdown (- for stdout, in place of the usual output)',
      nonEmpty,
    )
    .addOption(
      new Option('--format <format>', 'what --out writes, whatever its name').choices(['md', 'html']),
    )
    .option('--raw', 'on a terminal, print the Markdown as it is instead of rendering it (also AGENT_RAW=1)')
    .option(
      '--verify',
      'after writing, the small model checks each cited sentence against its evidence passages',
    )
    .option('--json', 'print the result as JSON for scripts')
    .option('--extractive', 'answer from local documents without any model, even when a key is set')
    .option(
      '--embeddings <provider:model>',
      'embeddings for hybrid search of local documents: openai[:model], ollama:<model> or openai-compatible:<model> (default: $AGENT_EMBEDDINGS)',
      nonEmpty,
    )
    .option(
      '--retrieval <mode>',
      'how local documents are searched: bm25, hybrid or semantic (default: $AGENT_RETRIEVAL, else hybrid with embeddings, bm25 without)',
      nonEmpty,
    )
    .option('--plan', 'print the plan (documents and web searches) and stop; with --json, as JSON')
    .option(
      '--review',
      'on a terminal: show the plan and keep, drop or add items before anything else is spent',
    )
    .option('--plan-file <file>', 'run this plan (as --plan --json prints it, edited) instead of planning')
    .option(
      '--site <domain>',
      'search the web only on this site and its subdomains (repeatable; default: $AGENT_SITES)',
      domains,
    )
    .option(
      '--exclude-site <domain>',
      'never use results from this site (repeatable; default: $AGENT_EXCLUDE_SITES)',
      domains,
    )
    .option('--recent <period>', 'only web pages published within this period: 7d, 6m, 1y', period)
    .addOption(
      new Option(
        '--resume <id>',
        'continue run <id>, which ended before its answer: what it read and extracted is not paid again',
      ).argParser(positiveInt),
    )
    .addOption(maxAgeOption())
    .option('--refresh', 'ignore the page and extraction caches this run (what it fetches is still cached)')
    .option(
      '--batch <file>',
      'answer every question of a file (- for stdin): one a line, or JSON Lines {"question", ...settings}; prints a JSON object per question',
      nonEmpty,
    )
    .option('--parallel <n>', 'with --batch: questions answered at once (default 2)', positiveInt)
    .option(
      '--queue',
      "with --batch: put one job per line in the team database's queue for `agent worker` processes, and print the batch id",
    )
    .option(
      '--wait',
      'with --queue: show the progress bar until the batch is done, then print as --batch does',
    )
    .addHelpText(
      'after',
      `
Without an API key, research runs in extractive mode: it quotes the best-matching sentences of the
local documents, with citations, and says that no model was used. Every run is kept: see agent reports.
Pages read and facts extracted are cached (see agent cache): a re-run pays only for what is new. A page
is used for --max-age (1d) before its server is asked again; --refresh fetches and extracts afresh.
Every cited sentence gets its evidence: the sentence of each cited source that best supports it and
where it is (--json "evidence"). --verify also has the small model judge each one (--json "verification").

Examples:
  agent research 'How much can a support agent refund without approval?'
  agent research 'What is our travel hotel limit in London?' --out answer.md
  agent research --report --depth 2 'How do escalations work?' -o report.md
  agent research --report 'How are refunds approved?' -o report.html   a page to share; print it to PDF
  agent research --content ~/wiki 'Who approves a $20,000 purchase?' --json
  agent research --verify 'What is the parental leave policy?'
  agent research --depth 3 --max-cost 0.50 'What is the policy on gifts?'
  agent research --max-age 0 'What changed in EU refund law?'   ask every page's server if it changed
  agent research --plan --json 'What changed in EU refund law?' > plan.json   the plan, to edit
  agent research --plan-file plan.json 'What changed in EU refund law?'   then run the edited plan
  agent research --review --site europa.eu 'What changed in EU refund law?'
  agent research --recent 6m 'What changed in EU refund law?'   pages of the last 6 months
  agent research --resume 12        continue run #12 (Ctrl-C, a crash or an API failure ended it)
  agent research --batch questions.txt --parallel 4 --max-cost 5 > answers.jsonl
  echo '{"question": "How are refunds approved?", "report": true}' |
    agent research --batch -                  a JSON line sets its own options

Quote a question in single quotes: in double quotes the shell expands $ (and ! in bash and zsh).

--plan --json prints {"plan": {"documents": [{"slug", "title"}], "searches": ["query"]}, "usage": {...}};
--plan-file takes that, or the plan object alone, documents as {"slug"} objects or plain slugs.

A model run is kept from its plan on, with each source read and each extraction as it is made. One that
ends without an answer is listed by agent reports as (unfinished); --resume continues it with the question,
content folder and settings it was started with (--provider and the model flags may name others).

--batch: a JSON line may set depth, breadth, perSearch, maxSources, report, sites, excludeSites, recent
and verify for its question (the command line's options are the defaults); blank and # lines are
skipped. Each question prints as --json would, plus "line", in the order they finish; a line that
failed prints {"line", "question", "error"}, and the exit code is 1. Running the same file again skips
the questions already answered with the same settings ("skipped": true, from the saved run).
--concurrency and --max-cost apply to the whole batch.

--batch FILE --queue puts the questions in the team database's job queue (AGENT_DATABASE_URL) and prints
the batch id; \`agent worker\` processes on any machine answer them, and \`agent batch status|results <id>\`
follow it. --wait shows the progress and prints the lines as --batch does. --max-cost is then one purse for
the whole batch, shared by every worker.`,
    )
    .action(async (words: string[], options, command: Command) => {
      const o = { ...options, db: command.optsWithGlobals().db };
      if (o.queue && o.batch === undefined)
        throw new UsageError(
          '--queue puts the questions of a --batch file in the queue: add --batch <file>.',
        );
      if (o.wait && !o.queue)
        throw new UsageError('--wait waits for a queued batch: add --batch <file> --queue.');
      if (o.queue) {
        const { runQueueCommand } = await import('../commands/research-queue.js');
        await runQueueCommand(words, o);
        return;
      }
      if (o.batch !== undefined) {
        const { runBatchCommand } = await import('../commands/research-batch.js');
        await runBatchCommand(words, o);
        return;
      }
      if (o.parallel !== undefined)
        throw new UsageError(
          '--parallel sets how many questions of a --batch run at once: add --batch <file>.',
        );
      const { runResearchCommand } = await import('../commands/research.js');
      // Which flags were typed (not defaults): --resume refuses those that would change the run.
      const given = command.options
        .filter((opt) => command.getOptionValueSource(opt.attributeName()) === 'cli')
        .map((opt) => opt.long ?? '');
      await runResearchCommand(words.join(' '), { ...o, given });
    });
}
