import { readFileSync } from 'node:fs';
import { maxAgeSetting } from '../../cache/duration.js';
import { AbortedError, errorMessage, UsageError } from '../../errors.js';
import { outcomeJson, runBatch } from '../../research/run/batch.js';
import { type BatchEntry, parseBatch } from '../../research/run/batch-file.js';
import { BatchProgress } from '../batch-progress.js';
import { onInterrupt } from '../interrupt.js';
import { openDb } from '../open-db.js';
import { flagSettings, type ResearchCommandOptions, researchPrices, researchSetup } from './research.js';

// `agent research --batch <file>`: the questions of a file (or stdin), one JSON object per question on
// stdout as each finishes, a progress bar on a terminal, one summary line on stderr at the end.

export interface BatchCommandOptions extends ResearchCommandOptions {
  batch: string;
  parallel?: number;
}

/** Options that make sense for one question only; `resume` belongs to a single run too. */
const SINGLE_RUN: [keyof BatchCommandOptions | 'resume', string][] = [
  ['plan', '--plan'],
  ['review', '--review'],
  ['planFile', '--plan-file'],
  ['out', '--out'],
  ['format', '--format'],
  ['resume', '--resume'],
];

function readBatch(path: string): string {
  try {
    // `-`: stdin, read to its end (a pipe, a file, or a terminal until Ctrl-D).
    return readFileSync(path === '-' ? 0 : path, 'utf8');
  } catch (error) {
    const where = path === '-' ? 'standard input' : path;
    throw new UsageError(`Cannot read the batch file ${where}: ${errorMessage(error)}`);
  }
}

/** The batch file's lines, the command line checked first (`--batch`, and `--batch --queue`). */
export function batchEntries(words: string[], o: BatchCommandOptions): BatchEntry[] {
  if (words.length)
    throw new UsageError(
      '--batch reads the questions from its file: give no question on the command line as well.',
    );
  const given: Record<string, unknown> = { ...o };
  const single = SINGLE_RUN.find(([key]) => given[key] !== undefined && given[key] !== false);
  if (single)
    throw new UsageError(
      `${single[1]} is for a single question and cannot be used with --batch: each question of a batch is saved as a run (agent reports --show <id>).`,
    );
  const entries = parseBatch(readBatch(o.batch));
  if (!entries.length)
    throw new UsageError(
      `The batch file ${o.batch === '-' ? '(standard input)' : o.batch} holds no questions: one a line, or JSON Lines with {"question": …}; blank lines and lines starting with # are skipped.`,
    );
  return entries;
}

export async function runBatchCommand(words: string[], o: BatchCommandOptions): Promise<void> {
  const entries = batchEntries(words, o);
  const { contentDir, filters, models, retrieval } = await researchSetup(o);
  const { userPrices, maxCostUsd } = researchPrices(o, models, retrieval);

  const store = await openDb(o.db);
  const controller = new AbortController();
  const progress = new BatchProgress(entries.length);
  const stopListening = onInterrupt(
    () => controller.abort(),
    () => progress.finish(models ? maxCostUsd : undefined),
  );
  let summary: Awaited<ReturnType<typeof runBatch>>;
  try {
    summary = await runBatch({
      entries,
      parallel: o.parallel,
      base: {
        store,
        contentDir,
        env: process.env,
        models,
        retrieval,
        userPrices,
        signal: controller.signal,
        ...flagSettings(o),
        maxCostUsd,
        // A batch run again, or one whose questions share sources, finds its pages and facts cached.
        maxAgeMs: maxAgeSetting(o.maxAge, process.env),
        refresh: o.refresh,
        ...filters,
      },
      onSpend: (costUsd) => progress.spend(costUsd),
      // Completion order: each object carries its "line".
      onOutcome: (outcome) => {
        progress.above(() => process.stdout.write(`${JSON.stringify(outcomeJson(outcome))}\n`));
        progress.done(outcome.status);
      },
    });
  } finally {
    progress.finish(models ? maxCostUsd : undefined);
    stopListening();
    await store.close();
  }
  if (summary.cancelled) {
    const cancelled = new AbortedError();
    // Answered questions are saved runs: a second pass over the same file skips them.
    cancelled.message =
      'Cancelled. Run the same batch again to continue: the questions already answered are skipped.';
    throw cancelled;
  }
  if (summary.failed) process.exitCode = 1;
}
