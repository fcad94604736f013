import { setTimeout as sleep } from 'node:timers/promises';
import { AbortedError, UsageError } from '../../errors.js';
import { createBatch, getBatch, type Item, items } from '../../queue/batches.js';
import { maxCostSetting } from '../../research/run/budget.js';
import { BatchProgress } from '../batch-progress.js';
import { onInterrupt } from '../interrupt.js';
import { openQueue } from '../queue-open.js';
import { flagSettings } from './research.js';
import { type BatchCommandOptions, batchEntries } from './research-batch.js';

// `agent research --batch FILE --queue [--wait]`: one job per line in the team database's queue, for
// `agent worker` processes on any machine to answer. Prints the batch's id; with --wait, the progress
// bar and then each line's JSON object, as `--batch` prints them, so a script switches by adding --queue.

export interface QueueCommandOptions extends BatchCommandOptions {
  queue: true;
  wait?: boolean;
}

/** The command line's settings, as every worker starts each question from them (its own keys and folder). */
export function batchSettings(o: BatchCommandOptions): Record<string, unknown> {
  const keep = {
    provider: o.provider,
    smallModel: o.smallModel,
    largeModel: o.largeModel,
    content: o.content,
    extractive: o.extractive,
    ...flagSettings(o),
    site: o.site,
    excludeSite: o.excludeSite,
    recent: o.recent,
    maxAge: o.maxAge,
    refresh: o.refresh,
  };
  return Object.fromEntries(Object.entries(keep).filter(([, v]) => v !== undefined));
}

export async function runQueueCommand(words: string[], o: QueueCommandOptions): Promise<void> {
  if (o.parallel !== undefined)
    throw new UsageError(
      '--parallel sets how many questions run at once on this machine: with --queue, each `agent worker --concurrency N` decides that.',
    );
  const entries = batchEntries(words, o);
  const maxCostUsd = maxCostSetting(o.maxCost, process.env);
  const queue = await openQueue(o.db, '--queue');
  try {
    const { id } = await createBatch(queue.store.db, queue.boss, {
      source: o.batch,
      options: batchSettings(o),
      maxCostUsd,
      entries,
      user: queue.store.user,
    });
    if (!o.wait) {
      process.stdout.write(`${id}\n`);
      process.stderr.write(
        `Queued batch ${id}: ${entries.length} question(s). \`agent worker\` answers them; \`agent batch status ${id}\` shows how far they are.\n`,
      );
      return;
    }
    // stdout stays the JSON Lines --batch prints: the id goes to stderr.
    process.stderr.write(`Queued batch ${id}: ${entries.length} question(s).\n`);
    const failed = await waitFor(queue.store.db, id, entries.length, maxCostUsd);
    if (failed) process.exitCode = 1;
  } finally {
    await queue.close();
  }
}

/** Prints each item as it settles, until none is queued or running; the number that failed. */
async function waitFor(
  db: Parameters<typeof items>[0],
  id: string,
  total: number,
  maxCostUsd: number | undefined,
): Promise<number> {
  const progress = new BatchProgress(total);
  const printed = new Set<number>();
  let stop = false;
  const stopListening = onInterrupt(() => {
    stop = true;
  });
  let failed = 0;
  try {
    for (;;) {
      const all = await items(db, id);
      for (const it of all) {
        if (printed.has(it.line) || !settled(it)) continue;
        printed.add(it.line);
        const json = lineJson(it);
        progress.above(() => process.stdout.write(`${JSON.stringify(json)}\n`));
        progress.done(it.state === 'done' ? (json.skipped ? 'skipped' : 'answered') : 'failed');
        if (it.state !== 'done') failed++;
      }
      progress.counts.spentUsd = (await getBatch(db, id)).spentUsd;
      if (printed.size === all.length) break;
      if (stop) {
        const stopped = new AbortedError();
        stopped.message = `Stopped waiting: batch ${id} is still queued, and the workers go on. \`agent batch status ${id}\` shows it; \`agent batch results ${id}\` prints the answers.`;
        throw stopped;
      }
      await sleep(500);
    }
  } finally {
    stopListening();
    progress.finish(maxCostUsd);
  }
  return failed;
}

const settled = (it: Item) => it.state === 'done' || it.state === 'failed' || it.state === 'cancelled';

/** The line's object as `--batch` prints it; a cancelled line says so as its error. */
export function lineJson(it: Item): Record<string, unknown> {
  if (it.result) return { line: it.line, ...it.result };
  const error = it.state === 'cancelled' ? 'cancelled (agent batch cancel)' : (it.error ?? it.state);
  return { line: it.line, ...(it.question ? { question: it.question } : {}), error };
}
