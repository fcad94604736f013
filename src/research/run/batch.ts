import { randomUUID } from 'node:crypto';
import { AbortedError, errorMessage } from '../../errors.js';
import { formatUsd } from '../../money.js';
import type { SavedRun } from '../../store/store.js';
import { limiter } from '../model-call.js';
import { runResearch } from '../pipeline.js';
import { resultJson } from '../result-json.js';
import { DEFAULT_CONCURRENCY } from '../run-context.js';
import { type ResearchOptions, type ResearchResult, type ResearchSettings, settingsOf } from '../types.js';
import { type BatchEntry, type BatchOverrides, type BatchQuestion, isLineError } from './batch-file.js';
import { indexStep } from './prepare.js';
import { Purse } from './purse.js';

// `agent research --batch`: many questions, `parallel` at a time, each saved as a run of its own. The runs
// share one pool of extraction slots (`--concurrency` bounds the batch, not each run) and, under
// `--max-cost`, one purse (the cap bounds the batch). A question already answered with the same settings
// is not run again but given from its saved run, so running a batch file again resumes it.

export const DEFAULT_PARALLEL = 2;

/** What became of one line of the batch file. */
export type BatchOutcome =
  | { status: 'answered'; line: number; result: ResearchResult }
  | { status: 'skipped'; line: number; run: SavedRun }
  | { status: 'failed'; line: number; question?: string; error: string };

export interface BatchOptions {
  entries: BatchEntry[];
  /** What every question starts from (the command line's options); a JSON line overrides its settings. */
  base: Omit<ResearchOptions, 'question' | 'runId' | 'onEvent' | 'extractSlots' | 'purse'>;
  /** Questions run at once. */
  parallel?: number;
  /** A model call was paid for (dollars, null when the model has no known price). */
  onSpend?: (costUsd: number | null) => void;
  /** A line is done: answered, skipped or failed. Called in completion order. */
  onOutcome?: (outcome: BatchOutcome) => void;
}

export interface BatchSummary {
  answered: number;
  skipped: number;
  failed: number;
  /** Ctrl-C (the base signal) ended the batch: the questions not finished were neither run nor reported. */
  cancelled: boolean;
}

/** The line's JSON object: `--json`'s shape with "line" first, or the line's error. */
export function outcomeJson(outcome: BatchOutcome): Record<string, unknown> {
  if (outcome.status === 'answered') return { line: outcome.line, ...resultJson(outcome.result) };
  if (outcome.status === 'skipped')
    return { line: outcome.line, skipped: true, id: outcome.run.id, ...outcome.run.result };
  const { line, question, error } = outcome;
  return { line, ...(question !== undefined ? { question } : {}), error };
}

/** Keys in a fixed order, so that two settings objects compare whatever order they were written in. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b)))
      : v,
  );

/** The newest saved run of this question with these settings, mode and verification, if there is one. */
async function answeredBefore(
  base: BatchOptions['base'],
  q: BatchQuestion,
  settings: ResearchSettings,
  verify: boolean,
): Promise<SavedRun | undefined> {
  const mode = base.models ? 'model' : 'extractive';
  const wanted = canonical(settings);
  return (await base.store.runs.ofQuestion(q.question, mode)).find(
    (run) => canonical(run.result.settings) === wanted && (run.result.verification !== undefined) === verify,
  );
}

/** Why a question was not started: the batch's cap stopped a run with no call left to give room back. */
const capSpent = (purse: Purse) =>
  `Not started: the batch's ${formatUsd(purse.limitUsd)} cap (--max-cost) is spent as far as a question can use it (${formatUsd(purse.spent)} spent). Raise the cap and run the batch again: answered questions are skipped.`;

export async function runBatch(o: BatchOptions): Promise<BatchSummary> {
  const { base } = o;
  const summary: BatchSummary = { answered: 0, skipped: 0, failed: 0, cancelled: false };
  const report = (outcome: BatchOutcome) => {
    summary[outcome.status]++;
    o.onOutcome?.(outcome);
  };
  const extractSlots = limiter(base.concurrency ?? DEFAULT_CONCURRENCY);
  const purse = base.models && base.maxCostUsd !== undefined ? new Purse(base.maxCostUsd, true) : undefined;

  // Once for the whole batch: each question would otherwise walk the content folder again.
  await indexStep(base, () => {});
  // Decided before anything runs, so that the same file always skips the same lines.
  const todo: { q: BatchQuestion; overrides: BatchOverrides }[] = [];
  for (const entry of o.entries) {
    if (isLineError(entry)) {
      report({ status: 'failed', ...entry });
      continue;
    }
    const overrides = entry.options;
    const settings = settingsOf({ ...base, ...overrides });
    const run = await answeredBefore(base, entry, settings, Boolean(overrides.verify ?? base.verify));
    if (run) report({ status: 'skipped', line: entry.line, run });
    else todo.push({ q: entry, overrides });
  }

  const runOne = async ({ q, overrides }: (typeof todo)[number]) => {
    if (purse?.exhausted) {
      report({ status: 'failed', line: q.line, question: q.question, error: capSpent(purse) });
      return;
    }
    const runId = randomUUID();
    try {
      const result = await runResearch({
        ...base,
        ...overrides,
        question: q.question,
        runId,
        indexed: true,
        // A signal per question: what a run's calls leave on it goes with it, not onto the batch's.
        signal: base.signal && AbortSignal.any([base.signal]),
        extractSlots,
        purse,
        onEvent: (e) => {
          if (e.type === 'spend') o.onSpend?.(e.costUsd);
        },
      });
      report({ status: 'answered', line: q.line, result });
    } catch (error) {
      if (error instanceof AbortedError || base.signal?.aborted) summary.cancelled = true;
      else report({ status: 'failed', line: q.line, question: q.question, error: errorMessage(error) });
    } finally {
      // What the run still held back (a write step it never reached) is free for the others.
      purse?.leave(runId);
    }
  };

  let next = 0;
  const worker = async () => {
    while (next < todo.length && !base.signal?.aborted) await runOne(todo[next++]!);
  };
  const workers = Math.max(1, Math.min(o.parallel ?? DEFAULT_PARALLEL, todo.length));
  await Promise.all(Array.from({ length: workers }, worker));
  if (base.signal?.aborted) summary.cancelled = true;
  return summary;
}
