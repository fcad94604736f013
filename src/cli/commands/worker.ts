import { maxAgeSetting } from '../../cache/duration.js';
import { errorMessage } from '../../errors.js';
import { formatUsd } from '../../money.js';
import type { BatchRow } from '../../queue/batches.js';
import { leaseSeconds } from '../../queue/boss.js';
import { parseProviderConcurrency, providerSlots } from '../../queue/limits.js';
import { runWorker } from '../../queue/worker.js';
import { indexStep } from '../../research/pipeline.js';
import type { ResearchOptions } from '../../research/types.js';
import { newHolder } from '../../store/holder.js';
import type { Store } from '../../store/store.js';
import { openQueue } from '../queue-open.js';
import { flagSettings, researchPrices, researchSetup } from './research.js';
import type { BatchCommandOptions } from './research-batch.js';

// `agent worker`: answers queued batch questions (src/queue/) until stopped, or with --until-empty until
// the queue has nothing left. SIGINT or SIGTERM: no new job is taken and the running ones are handed
// back (the next worker continues each from its recorded progress); a second signal exits at once,
// leaving them to their lease.

export interface WorkerCommandOptions {
  concurrency?: number;
  untilEmpty?: boolean;
  maxCost?: number;
  db?: string;
}

/** Each batch's research options on this machine: its settings, with this machine's keys and folder. */
function optionsMaker(store: Store) {
  const made = new Map<string, Promise<Omit<ResearchOptions, 'question'>>>();
  const indexed = new Map<string, Promise<void>>();
  const make = async (batch: BatchRow): Promise<Omit<ResearchOptions, 'question'>> => {
    const s = batch.options as Partial<BatchCommandOptions>;
    const { contentDir, filters, models, retrieval } = await researchSetup(s);
    // The batch's cap is its shared purse (job.ts), not a cap per run.
    const { userPrices } = researchPrices({ ...s, maxCost: undefined }, models, retrieval);
    const base = { store, contentDir, env: process.env };
    // Once per content folder for the worker's life: each question would otherwise walk it again.
    if (!indexed.has(contentDir))
      indexed.set(
        contentDir,
        indexStep(base, () => {}),
      );
    await indexed.get(contentDir);
    return {
      ...base,
      models,
      retrieval,
      userPrices,
      ...flagSettings(s),
      maxAgeMs: maxAgeSetting(s.maxAge, process.env),
      refresh: s.refresh,
      indexed: true,
      ...filters,
    };
  };
  return (batch: BatchRow) => {
    if (!made.has(batch.id)) made.set(batch.id, make(batch));
    return made.get(batch.id)!;
  };
}

export async function runWorkerCommand(o: WorkerCommandOptions): Promise<void> {
  const lease = leaseSeconds();
  const limits = parseProviderConcurrency(process.env.AGENT_PROVIDER_CONCURRENCY);
  const queue = await openQueue(o.db, 'agent worker');
  const { store, boss } = queue;
  const holder = newHolder();
  const stopping = new AbortController();
  let signals = 0;
  const onSignal = () => {
    signals++;
    if (signals > 1) process.exit(130);
    process.stderr.write(
      'agent: stopping: no new jobs; the running ones are handed back (again: exit at once).\n',
    );
    stopping.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  let spent = 0;
  const concurrency = o.concurrency ?? 2;
  // Each running job writes its steps as they end (three extractions at once, say) besides the queue's
  // own statements: a connection per job and two for the queue, rather than the usual four in all.
  store.db.pool.options.max = Math.max(store.db.pool.options.max ?? 4, concurrency + 2);
  process.stderr.write(
    `agent: worker ${holder} taking jobs from ${store.location} (${concurrency} at a time${o.untilEmpty ? ', until the queue is empty' : ''}).\n`,
  );
  try {
    const summary = await runWorker({
      db: store.db,
      boss,
      concurrency,
      untilEmpty: o.untilEmpty,
      leaseSeconds: lease,
      stopping: stopping.signal,
      full: () => o.maxCost !== undefined && spent >= o.maxCost,
      context: {
        store,
        holder,
        optionsFor: optionsMaker(store),
        purses: new Map(),
        callSlots: limits && providerSlots(store.db, limits, holder),
        onSpend: (cost) => {
          spent += cost ?? 0;
        },
      },
      onJob: ({ batch, line, end, error }) => {
        const what = error
          ? `not finished (${errorMessage(error)}): its lease will run out and another delivery continues it`
          : end?.kind === 'retry'
            ? `to be tried again (${end.reason})`
            : end?.kind === 'handback'
              ? 'handed back'
              : 'finished';
        process.stderr.write(`agent: batch ${batch} line ${line}: ${what}\n`);
      },
    });
    const cap =
      o.maxCost !== undefined && spent >= o.maxCost
        ? ` Stopped at its --max-cost (${formatUsd(o.maxCost)}).`
        : '';
    process.stderr.write(
      `agent: worker done: ${summary.completed} job(s) finished, ${summary.retried} to be tried again, ${summary.handedBack} handed back; ${formatUsd(spent)} spent.${cap}\n`,
    );
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await queue.close();
  }
}
