import { AbortedError, AgentError, errorMessage, ProviderError } from '../errors.js';
import { formatUsd } from '../money.js';
import { runResearch } from '../research/pipeline.js';
import { outcomeJson } from '../research/run/batch.js';
import { CapReached } from '../research/run/budget.js';
import { Purse } from '../research/run/purse.js';
import type { ResearchOptions, ResearchResult } from '../research/types.js';
import { StoreError } from '../store/errors.js';
import type { PostgresStore } from '../store/postgres/store.js';
import type { Store } from '../store/store.js';
import {
  type BatchRow,
  batchSpent,
  CAP_SPENT_MARK,
  type Item,
  isCancelled,
  jobStart,
  touchItem,
  updateItem,
} from './batches.js';

// One job: one question of a batch, run as `agent research` runs it, recorded as it goes. A job may be
// delivered more than once (a worker killed, a lease run out, a handed-back job): the item's state and
// its run's recorded progress make every delivery after the first either a no-op or a continuation, so a
// question gets exactly one report and nothing already paid for is paid again.

/** What a worker tells the queue about a job it ran. */
export type JobEnd =
  /** Finished, one way or another (answered, failed, cancelled): the job is complete. */
  | { kind: 'complete' }
  /** To be run again after a back-off (a 429, the database away, its run busy elsewhere). */
  | { kind: 'retry'; reason: string }
  /** The worker is stopping: the job goes back to the queue at once. */
  | { kind: 'handback' };

/** What a worker gives every job it runs. */
export interface JobContext {
  store: PostgresStore;
  holder: string;
  /** The research options of a batch (its settings, this machine's models and content folder). */
  optionsFor(batch: BatchRow): Promise<Omit<ResearchOptions, 'question'>>;
  /** One purse per capped batch in this process, kept in step with the ledger's total for it. */
  purses: Map<string, Purse>;
  callSlots?: ResearchOptions['callSlots'];
  /** Aborted when the worker stops taking jobs: running ones are handed back. */
  stopping: AbortSignal;
  /** Every few seconds while the job runs: renews the job's lease. */
  heartbeat(): Promise<void>;
  /** How often the heartbeat beats and a cancelled batch is noticed. */
  beatMs: number;
  onSpend?(costUsd: number | null): void;
}

const capMessage = (batch: BatchRow, spent: number) =>
  `Not started: ${CAP_SPENT_MARK} (${formatUsd(spent)} of ${formatUsd(batch.maxCostUsd ?? 0)}). Queue the questions left again with a higher cap.`;

/** Whether a failure should be tried again later instead of failing the question. */
function retryable(error: unknown): string | undefined {
  for (let e: unknown = error; e; e = (e as { cause?: unknown }).cause) {
    if (e instanceof ProviderError && e.status === 429) return 'the provider is rate limiting (429)';
    if (e instanceof StoreError && e.problem === 'offline') return 'the database server is away';
    if (e instanceof AgentError && /is being continued by another process/.test(e.message))
      return 'its run is still held by another worker';
  }
  return undefined;
}

/**
 * The store as the run sees it: the moment its run is kept, the item is told (so a later delivery finds
 * it even after the run's progress is dropped). That write goes beside the run's next steps, and the
 * report is saved only once it is in: an answered run is never unknown to its item.
 */
function noting(store: PostgresStore, it: Item): Store {
  let noted: Promise<void> = Promise.resolve();
  const progress = Object.create(store.progress) as Store['progress'];
  progress.start = async (run) => {
    const id = await store.progress.start(run);
    noted = updateItem(store.db, it.batchId, it.line, { runId: id });
    // Awaited (and its failure raised) before the save; marked handled so the wait is not a crash.
    noted.catch(() => {});
    return id;
  };
  const runs = Object.create(store.runs) as Store['runs'];
  runs.save = async (run) => {
    await noted;
    return store.runs.save(run);
  };
  return new Proxy(store, {
    get: (t, k) => (k === 'progress' ? progress : k === 'runs' ? runs : Reflect.get(t, k)),
  }) as Store;
}

export async function runJob(ctx: JobContext, batchId: string, line: number): Promise<JobEnd> {
  const { store } = ctx;
  const db = store.db;
  const { item: it, batch, run, taken } = await jobStart(db, batchId, line, ctx.holder, ctx.beatMs * 3);
  // Gone (its batch deleted) or already settled: a duplicate delivery does nothing.
  if (!it || it.state === 'done' || it.state === 'failed' || it.state === 'cancelled')
    return { kind: 'complete' };
  if (!batch) return { kind: 'complete' };
  if (batch.cancelled) {
    await updateItem(db, batchId, line, { state: 'cancelled', holder: null });
    return { kind: 'complete' };
  }
  let purse: Purse | undefined;
  if (batch.maxCostUsd !== null) {
    purse = ctx.purses.get(batchId) ?? new Purse(batch.maxCostUsd, true);
    ctx.purses.set(batchId, purse);
    // The ledger holds every worker's calls: what the others spent counts against this one's runs too.
    purse.spent = Math.max(purse.spent, await batchSpent(db, batchId));
    if (purse.exhausted || purse.spent >= batch.maxCostUsd) {
      const error = capMessage(batch, purse.spent);
      await updateItem(db, batchId, line, {
        state: 'failed',
        error,
        result: { line, question: it.question, error },
        holder: null,
      });
      return { kind: 'complete' };
    }
  }
  if (run?.status === 'done') {
    // Answered before the item could say so (its worker died in between): that report is the answer.
    const saved = await store.runs.get(run.id);
    const result = { line, id: run.id, ...saved?.result };
    await updateItem(db, batchId, line, { state: 'done', runId: run.id, result, holder: null });
    return { kind: 'complete' };
  }
  if (!taken) return { kind: 'retry', reason: 'its question is held by another worker' };

  const controller = new AbortController();
  let why: 'handback' | 'cancelled' | undefined;
  const stop = (reason: 'handback' | 'cancelled') => {
    why ??= reason;
    controller.abort();
  };
  const onStopping = () => stop('handback');
  ctx.stopping.addEventListener('abort', onStopping);
  if (ctx.stopping.aborted) stop('handback');
  const beat = setInterval(() => {
    ctx.heartbeat().catch(() => {});
    touchItem(db, it, ctx.holder).catch(() => {});
    isCancelled(db, batchId)
      .then((c) => c && stop('cancelled'))
      .catch(() => {});
    if (purse)
      batchSpent(db, batchId).then(
        (s) => {
          purse.spent = Math.max(purse.spent, s);
        },
        () => {},
      );
  }, ctx.beatMs);
  try {
    const base = await ctx.optionsFor(batch);
    const result: ResearchResult = await runResearch({
      ...base,
      ...(it.overrides as Partial<ResearchOptions>),
      store: noting(store, it),
      question: it.question!,
      runId: it.ledgerId,
      resumable: true,
      resume: run?.id,
      batchId,
      purse,
      callSlots: ctx.callSlots,
      signal: controller.signal,
      onEvent: (e) => {
        if (e.type === 'spend') ctx.onSpend?.(e.costUsd);
      },
    });
    // Answered but not saved (the server went away at that moment): the run stays unfinished, and the
    // next delivery continues it, so the answer is kept as a report before the item says done.
    if (result.id === undefined && result.mode === 'model') {
      await updateItem(db, batchId, line, { state: 'queued', holder: null }).catch(() => {});
      return { kind: 'retry', reason: 'its report could not be saved' };
    }
    const json = outcomeJson({ status: 'answered', line, result });
    await updateItem(db, batchId, line, {
      state: 'done',
      runId: result.id ?? null,
      result: json,
      holder: null,
    });
    return { kind: 'complete' };
  } catch (error) {
    if (why === 'cancelled' || (controller.signal.aborted && why !== 'handback')) {
      // The run stays unfinished: `agent research --resume` can still finish it.
      await updateItem(db, batchId, line, { state: 'cancelled', holder: null });
      return { kind: 'complete' };
    }
    if (why === 'handback' || error instanceof AbortedError) {
      await updateItem(db, batchId, line, { state: 'queued', holder: null });
      return { kind: 'handback' };
    }
    const again = retryable(error);
    if (again) {
      await updateItem(db, batchId, line, { state: 'queued', holder: null, error: `waiting: ${again}` });
      return { kind: 'retry', reason: again };
    }
    let message = errorMessage(error);
    // The shared purse stopped it: said as the batch's cap, in the same words by every worker.
    if (purse && (error instanceof CapReached || /cap \(--max-cost\)/.test(message)))
      message = /^Not started/.test(message)
        ? capMessage(batch, purse.spent)
        : `Stopped: ${CAP_SPENT_MARK} (${formatUsd(purse.spent)} of ${formatUsd(purse.limitUsd)}): ${message}`;
    await updateItem(db, batchId, line, {
      state: 'failed',
      error: message,
      result: { line, question: it.question, error: message },
      holder: null,
    });
    return { kind: 'complete' };
  } finally {
    clearInterval(beat);
    ctx.stopping.removeEventListener('abort', onStopping);
    if (purse) purse.leave(it.ledgerId);
  }
}
