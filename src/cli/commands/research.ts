import { randomUUID } from 'node:crypto';
import { isatty } from 'node:tty';
import { maxAgeSetting } from '../../cache/duration.js';
import { UsageError } from '../../errors.js';
import { loadUserPrices } from '../../providers/price-file.js';
import { createProvider, resolveModel, resolveProviderName } from '../../providers/registry.js';
import { outFormat } from '../../report/format.js';
import { contentDirectory } from '../../research/content-folder.js';
import {
  InterruptedRun,
  type ModelSetup,
  planResearch,
  type ResearchOptions,
  type ResearchResult,
  runResearch,
  VERIFY_NEEDS_MODEL,
} from '../../research/pipeline.js';
import { resultJson } from '../../research/result-json.js';
import { type RetrievalSetup, retrievalSetup } from '../../research/retrieval/settings.js';
import { maxCostSetting, requirePrices } from '../../research/run/budget.js';
import type { RecordedOptions } from '../../research/run/resume.js';
import type { Provider, ProviderName } from '../../types.js';
import { pdfBudgetMs } from '../../web/pdf-budget.js';
import { checkWritable, writeOutput } from '../files.js';
import { onInterrupt } from '../interrupt.js';
import { renderFor } from '../markdown/index.js';
import { openDb } from '../open-db.js';
import {
  citationSummary,
  evidenceSummary,
  groundingSummary,
  ResearchRenderer,
  sourceList,
  toJson,
  toMarkdown,
  usageLine,
  verificationSummary,
} from '../research-render.js';
import { createSpinner } from '../spinner.js';
import { clean, styleFor } from '../style.js';
import { recordedFilters, resumeCommand, resumeOptions } from './research-resume.js';
import {
  ignoredFilterFlags,
  printPlan,
  type SteerOptions,
  steerOptions,
  webFilterOptions,
} from './research-steer.js';

export interface ResearchCommandOptions extends SteerOptions {
  provider?: string;
  smallModel?: string;
  largeModel?: string;
  content?: string;
  out?: string;
  format?: string;
  raw?: boolean;
  json?: boolean;
  extractive?: boolean;
  report?: boolean;
  verify?: boolean;
  depth?: number;
  breadth?: number;
  perSearch?: number;
  maxSources?: number;
  concurrency?: number;
  maxCost?: number;
  /** `--max-age` in milliseconds. */
  maxAge?: number;
  refresh?: boolean;
  db?: string;
  /** Continue this unfinished run. */
  resume?: number;
  /** `--embeddings <provider>:<model>` and `--retrieval bm25|hybrid|semantic`. */
  embeddings?: string;
  retrieval?: string;
  /** The flags given on the command line (not defaults), as `--name`. */
  given?: string[];
}

export const REPORT_NEEDS_MODEL =
  '--report needs a model to write the report, and extractive mode uses none: drop --report to get the passages that best answer the question, or drop --extractive, or set ANTHROPIC_API_KEY or OPENAI_API_KEY (or use --provider ollama).';

/** The models for a research run, or undefined for extractive mode (no provider, or --extractive). */
export async function researchModels(
  o: Pick<ResearchCommandOptions, 'provider' | 'smallModel' | 'largeModel' | 'extractive'>,
): Promise<ModelSetup | undefined> {
  if (o.extractive) return undefined;
  const name = resolveProviderName(o.provider);
  if (!name) return undefined;
  return {
    provider: await loadingProvider(name),
    smallModel: resolveModel(name, 'small', o.smallModel),
    largeModel: resolveModel(name, 'large', o.largeModel),
  };
}

/**
 * The provider while its SDK still loads: the run opens the database and checks the document index
 * meanwhile, and the first model call waits for it. A setting refused before anything loads (a missing
 * key) still stops the run here, before anything is spent.
 */
async function loadingProvider(name: ProviderName): Promise<Provider> {
  const pending = createProvider(name);
  // Settled at once only when refused: race() then rejects with it, else resolves with undefined.
  await Promise.race([pending, undefined]);
  const provider: Provider = { name, complete: async (request) => (await pending).complete(request) };
  // Local servers say (or are told) their models' contexts; the hosted APIs have no such question.
  if (name === 'ollama' || name === 'openai-compatible')
    provider.contextTokens = async (model) => (await pending).contextTokens?.(model);
  return provider;
}

/**
 * What every run of the command shares, checked before anything is spent: the content folder, web
 * filters, models (none: extractive mode), prices and spending cap.
 */
export async function researchSetup(o: ResearchCommandOptions) {
  const contentDir = contentDirectory(o.content);
  const filters = webFilterOptions(o, process.env);
  const models = await researchModels(o);
  // A bad --embeddings or --retrieval stops the run here: one line, exit 2.
  const retrieval = await retrievalSetup(o);
  if (o.verify && !models) throw new UsageError(VERIFY_NEEDS_MODEL);
  // Refused rather than ignored: a short extractive answer where a report file was asked for is a surprise.
  if (o.report && !models) throw new UsageError(REPORT_NEEDS_MODEL);
  return { contentDir, filters, models, retrieval };
}

/** The command line's settings for a run, as the pipeline takes them. */
export const flagSettings = (o: ResearchCommandOptions) => ({
  report: o.report,
  verify: o.verify,
  depth: o.depth,
  breadth: o.breadth,
  perSearch: o.perSearch,
  maxSources: o.maxSources,
  concurrency: o.concurrency,
});

/** The price table and the spending cap; a cap needs a price for every model it covers. */
export function researchPrices(
  o: ResearchCommandOptions,
  models: ModelSetup | undefined,
  retrieval?: RetrievalSetup,
) {
  const ignored = models ? undefined : ignoredFilterFlags(o);
  if (ignored) process.stderr.write(`${styleFor(process.stderr).yellow(ignored)}\n`);
  const embedder = retrieval?.embedder;
  const userPrices = models || embedder ? loadUserPrices() : {};
  const maxCostUsd = maxCostSetting(o.maxCost, process.env);
  pdfBudgetMs(process.env); // a bad AGENT_PDF_BUDGET_MS stops the run here, before any model call
  if (models && maxCostUsd !== undefined)
    requirePrices(models.provider.name, [models.smallModel, models.largeModel], userPrices);
  if (embedder && maxCostUsd !== undefined) requirePrices(embedder.provider, [embedder.model], userPrices);
  return { userPrices, maxCostUsd };
}

export async function runResearchCommand(
  asked: string,
  flags: ResearchCommandOptions,
): Promise<ResearchResult | undefined> {
  let question = asked;
  let o = flags;
  let recorded: RecordedOptions | undefined;
  if (flags.resume !== undefined)
    ({ question, options: o, recorded } = await resumeOptions(flags.resume, asked, flags));
  // A question of nothing but escape sequences and control characters is empty once made printable.
  else if (!clean(question).trim())
    throw new UsageError(
      'Ask a question, for example: agent research "How much can a support agent refund?"',
    );
  // `--out -` is the file's text on stdout, in place of the usual display.
  const outToStdout = o.out === '-';
  if (o.out !== undefined) checkWritable(o.out, { json: o.json });
  const format = outFormat(o.out, o.format);
  const setup = await researchSetup(o);
  const { contentDir, models, retrieval } = setup;
  const filters = recorded ? recordedFilters(recorded) : setup.filters;
  const steer = steerOptions(o, models);
  const { userPrices, maxCostUsd } = researchPrices(o, models, retrieval);
  const maxAgeMs = maxAgeSetting(o.maxAge, process.env);
  const store = await openDb(o.db);
  const spinner = o.json ? undefined : await createSpinner();
  const renderer = new ResearchRenderer(
    spinner,
    // isatty, not process.stdout.isTTY: stdout's stream is made when the answer is written, not now.
    !o.json && !outToStdout && isatty(1),
    o.raw,
  );
  const controller = new AbortController();
  const stopListening = onInterrupt(
    () => {
      if (spinner?.isSpinning) spinner.text = 'Cancelling: recording the calls in flight…';
      controller.abort();
    },
    () => spinner?.stop(),
  );
  let result: ResearchResult;
  let ok = false;
  const review = steer.review;
  const options: ResearchOptions = {
    question,
    store,
    contentDir,
    env: process.env,
    models,
    retrieval,
    runId: randomUUID(),
    userPrices,
    signal: controller.signal,
    ...flagSettings(o),
    maxCostUsd,
    resumable: true,
    resume: o.resume,
    maxAgeMs,
    refresh: o.refresh,
    ...filters,
    ...steer,
    // The spinner stops while the user reads and edits the plan.
    review:
      review &&
      ((plan, documents) => {
        renderer.finishProgress(true);
        return review(plan, documents);
      }),
    onEvent: renderer.handle,
  };
  try {
    if (o.plan && models) {
      const planned = await planResearch({ ...options, models });
      renderer.finishProgress(true);
      printPlan(planned, o.json);
      return undefined;
    }
    result = await runResearch(options);
    ok = true;
  } catch (error) {
    // Kept unfinished: the exit line says how to continue it.
    if (error instanceof InterruptedRun)
      error.message = `${error.message} Resume it with: ${resumeCommand(error.run, o.db)}`;
    throw error;
  } finally {
    renderer.finishProgress(ok);
    stopListening();
    await store.close();
  }

  // The answer is shown (and was saved) before the file is written: a failed write loses nothing.
  const err = styleFor(process.stderr);
  if (o.json) process.stdout.write(`${toJson(result)}\n`);
  else {
    if (outToStdout) printChecks(result, o.extractive);
    else printResearch(result, renderer.answerShown, o.raw, o.extractive);
    if (result.id !== undefined)
      process.stderr.write(err.dim(`Saved as run ${result.id} (agent reports --show ${result.id}).\n`));
  }
  if (o.out !== undefined) {
    const names = models ? [...new Set([models.smallModel, models.largeModel])] : [];
    // The HTML renderer is loaded only when a page is written.
    const text =
      format === 'html'
        ? (await import('../../report/html.js')).renderHtml(resultJson(result), { models: names })
        : toMarkdown(result);
    await writeOutput(o.out, text);
    if (!o.json && !outToStdout) process.stderr.write(err.dim(`Written to ${o.out}\n`));
  }
  return result;
}

/** The answer (unless it was streamed already) and source list on stdout; the checks on stderr. */
export function printResearch(
  result: ResearchResult,
  answerShown: boolean,
  raw?: boolean,
  askedExtractive?: boolean,
): void {
  const out = styleFor(process.stdout);
  if (!answerShown) {
    if (result.mode === 'extractive' && result.sources.length > 0) {
      process.stdout.write(
        `${out.dim('No model was used (extractive mode): the passages that best answer the question.')}\n\n`,
      );
    }
    process.stdout.write(renderFor(process.stdout, clean(result.answer), raw).replace(/\n+$/, ''));
  }
  if (result.sources.length > 0) process.stdout.write(`\n\n${out.bold('Sources')}\n${sourceList(result)}\n`);
  else process.stdout.write('\n');
  printChecks(result, askedExtractive);
}

/** The grounding and citation checks and the run's usage, on stderr. */
function printChecks(result: ResearchResult, askedExtractive = false): void {
  const err = styleFor(process.stderr);
  const grounding = groundingSummary(result);
  if (grounding.length > 0) process.stderr.write(`\n${grounding.map((l) => err.yellow(l)).join('\n')}\n`);
  const verified = verificationSummary(result);
  if (verified.length > 0) process.stderr.write(`\n${verified.map((l) => err.yellow(l)).join('\n')}\n`);
  // Weaker than a missing number: the sentence may restate its source in words this check cannot match.
  const evidence = evidenceSummary(result);
  if (evidence.length > 0) process.stderr.write(`\n${evidence.map((l) => err.dim(l)).join('\n')}\n`);
  const checks = citationSummary(result);
  if (checks.length > 0) process.stderr.write(`\n${checks.map((l) => err.dim(l)).join('\n')}\n`);
  process.stderr.write(`${err.dim(usageLine(result, askedExtractive))}\n`);
}
