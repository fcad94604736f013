import { randomUUID } from 'node:crypto';
import { UsageError } from '../../errors.js';
import { loadUserPrices } from '../../providers/price-file.js';
import { createProvider, resolveModel, resolveProviderName } from '../../providers/registry.js';
import { maxCostSetting, requirePrices } from '../../research/budget.js';
import { contentDirectory } from '../../research/documents.js';
import { type ModelSetup, type ResearchResult, runResearch } from '../../research/pipeline.js';
import { checkWritable, writeFileAtomic } from '../files.js';
import { openDb } from '../open-db.js';
import {
  citationSummary,
  groundingSummary,
  ResearchRenderer,
  sourceList,
  toJson,
  toMarkdown,
  usageLine,
} from '../research-render.js';
import { createSpinner } from '../spinner.js';
import { clean, styleFor } from '../style.js';

export interface ResearchCommandOptions {
  provider?: string;
  smallModel?: string;
  largeModel?: string;
  content?: string;
  out?: string;
  json?: boolean;
  extractive?: boolean;
  report?: boolean;
  depth?: number;
  breadth?: number;
  perSearch?: number;
  maxSources?: number;
  concurrency?: number;
  maxCost?: number;
  db?: string;
}

/** The models for a research run, or undefined for extractive mode (no provider, or --extractive). */
export async function researchModels(
  o: Pick<ResearchCommandOptions, 'provider' | 'smallModel' | 'largeModel' | 'extractive'>,
): Promise<ModelSetup | undefined> {
  if (o.extractive) return undefined;
  const name = resolveProviderName(o.provider);
  if (!name) return undefined;
  return {
    provider: await createProvider(name),
    smallModel: resolveModel(name, 'small', o.smallModel),
    largeModel: resolveModel(name, 'large', o.largeModel),
  };
}

export async function runResearchCommand(
  question: string,
  o: ResearchCommandOptions,
): Promise<ResearchResult> {
  if (!question.trim())
    throw new UsageError(
      'Ask a question, for example: agent research "How much can a support agent refund?"',
    );
  const contentDir = contentDirectory(o.content);
  if (o.out) checkWritable(o.out);
  const models = await researchModels(o);
  const userPrices = models ? loadUserPrices() : {};
  const maxCostUsd = maxCostSetting(o.maxCost, process.env);
  if (models && maxCostUsd !== undefined)
    requirePrices(models.provider.name, [models.smallModel, models.largeModel], userPrices);
  const db = openDb(o.db);
  const spinner = o.json ? undefined : await createSpinner();
  const renderer = new ResearchRenderer(spinner, !o.json && Boolean(process.stdout.isTTY));
  const controller = new AbortController();
  const onSigint = () => controller.abort();
  process.once('SIGINT', onSigint);
  let result: ResearchResult;
  let ok = false;
  try {
    result = await runResearch({
      question,
      db,
      contentDir,
      env: process.env,
      models,
      runId: randomUUID(),
      userPrices,
      signal: controller.signal,
      report: o.report,
      depth: o.depth,
      breadth: o.breadth,
      perSearch: o.perSearch,
      maxSources: o.maxSources,
      concurrency: o.concurrency,
      maxCostUsd,
      onEvent: renderer.handle,
    });
    ok = true;
  } finally {
    renderer.finishProgress(ok);
    process.off('SIGINT', onSigint);
    db.close();
  }

  // The answer is shown (and was saved) before the file is written: a failed write loses nothing.
  const err = styleFor(process.stderr);
  if (o.json) process.stdout.write(`${toJson(result)}\n`);
  else {
    printResearch(result, renderer.answerShown);
    if (result.id !== undefined)
      process.stderr.write(err.dim(`Saved as run ${result.id} (agent reports --show ${result.id}).\n`));
  }
  if (o.out) {
    writeFileAtomic(o.out, toMarkdown(result));
    if (!o.json) process.stderr.write(err.dim(`Written to ${o.out}\n`));
  }
  return result;
}

/** The answer (unless it was streamed already) and source list on stdout; the checks on stderr. */
export function printResearch(result: ResearchResult, answerShown: boolean): void {
  const out = styleFor(process.stdout);
  const err = styleFor(process.stderr);
  if (!answerShown) {
    if (result.mode === 'extractive' && result.sources.length > 0) {
      process.stdout.write(
        `${out.dim('No model was used (extractive mode): the passages that best answer the question.')}\n\n`,
      );
    }
    process.stdout.write(clean(result.answer));
  }
  if (result.sources.length > 0) process.stdout.write(`\n\n${out.bold('Sources')}\n${sourceList(result)}\n`);
  else process.stdout.write('\n');
  const grounding = groundingSummary(result);
  if (grounding.length > 0) process.stderr.write(`\n${grounding.map((l) => err.yellow(l)).join('\n')}\n`);
  const checks = citationSummary(result);
  if (checks.length > 0) process.stderr.write(`\n${checks.map((l) => err.dim(l)).join('\n')}\n`);
  process.stderr.write(`${err.dim(usageLine(result))}\n`);
}
