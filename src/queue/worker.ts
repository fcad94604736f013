import { setTimeout as sleep } from 'node:timers/promises';
import type { Db } from '../store/postgres/db.js';
import { type Boss, QUEUE_NAME, QUEUE_SCHEMA } from './boss.js';
import { type JobContext, type JobEnd, runJob } from './job.js';

// `agent worker`: takes jobs from the queue, `concurrency` at a time, and runs each (job.ts). The worker
// itself keeps the queue moving: it expires the leases of jobs whose worker went away (pg-boss's
// maintenance, at the lease's pace rather than every few minutes), renews the leases of its own jobs,
// and hands its running jobs back when asked to stop.

export interface WorkerOptions {
  db: Db;
  boss: Boss;
  concurrency: number;
  /** Exit once nothing is queued, waiting or running anywhere. */
  untilEmpty?: boolean;
  /** Seconds a job's lease lasts without renewal. */
  leaseSeconds: number;
  /** Stop taking jobs (those running finish or are handed back). */
  stopping: AbortSignal;
  /** Stop taking jobs when this returns true (the worker's --max-cost spent). */
  full?: () => boolean;
  /** The job's context, but its heartbeat (which renews that job's lease). */
  context: Omit<JobContext, 'heartbeat' | 'beatMs' | 'stopping'>;
  onJob?(event: { batch: string; line: number; end?: JobEnd; error?: unknown }): void;
}

export interface WorkerSummary {
  completed: number;
  retried: number;
  handedBack: number;
}

const JOB = `${QUEUE_SCHEMA}.job`;

/**
 * Renews a job's lease: pg-boss expires an active job whose start is older than its expire_in, which the
 * worker sets to its own lease (AGENT_QUEUE_LEASE) on taking the job and at every renewal.
 */
const renewLease = (db: Db, id: string, seconds: number) =>
  db.query(
    `UPDATE ${JOB} SET started_on = pg_catalog.now(), expire_in = $3 * interval '1 second'
     WHERE name = $1 AND id = $2 AND state = 'active'`,
    [QUEUE_NAME, id, seconds],
  );

/** A job handed back goes to the front of the queue at once, without counting as a failure. */
const handBack = (db: Db, id: string) =>
  db.query(
    `UPDATE ${JOB} SET state = 'retry', start_after = pg_catalog.now() WHERE name = $1 AND id = $2 AND state = 'active'`,
    [QUEUE_NAME, id],
  );

/** Jobs not finished: queued, waiting for a retry, or held by a worker (whose lease may yet run out). */
async function unfinished(db: Db): Promise<number> {
  const row = await db.one<{ n: number }>(
    `SELECT count(*) AS n FROM ${JOB} WHERE name = $1 AND state < 'completed'`,
    [QUEUE_NAME],
  );
  return row?.n ?? 0;
}

export async function runWorker(o: WorkerOptions): Promise<WorkerSummary> {
  const summary: WorkerSummary = { completed: 0, retried: 0, handedBack: 0 };
  const running = new Set<Promise<void>>();
  const beatMs = Math.max(200, (o.leaseSeconds * 1000) / 3);
  let lastExpire = 0;
  let wake: (() => void) | undefined;
  const woken = () => new Promise<void>((resolve) => (wake = resolve));
  o.stopping.addEventListener('abort', () => wake?.());

  // Slots taken by jobs still running; a job's slot is free the moment it ends, before the queue hears
  // of it, so the next job is fetched while the last one is being marked complete.
  let busy = 0;
  const start = (job: { id: string; data: { batch: string; line: number } }) => {
    const { batch, line } = job.data;
    busy++;
    let free = () => {
      busy--;
      free = () => {};
      wake?.();
    };
    const task = (async () => {
      try {
        const heartbeat = async () => {
          await renewLease(o.db, job.id, o.leaseSeconds);
        };
        // The job has just been taken (its lease, as long as its batch was queued with, starts now):
        // the first renewal, to this worker's lease, goes beside the job's first reads, not before them.
        heartbeat().catch(() => {});
        const end = await runJob({ ...o.context, stopping: o.stopping, beatMs, heartbeat }, batch, line);
        free();
        if (end.kind === 'complete') {
          await o.boss.complete(QUEUE_NAME, job.id);
          summary.completed++;
        } else if (end.kind === 'retry') {
          await o.boss.fail(QUEUE_NAME, job.id, { reason: end.reason });
          summary.retried++;
        } else {
          await handBack(o.db, job.id);
          summary.handedBack++;
        }
        o.onJob?.({ batch, line, end });
      } catch (error) {
        // The database went away mid-job: the lease runs out and another delivery continues it.
        o.onJob?.({ batch, line, error });
      } finally {
        free();
      }
    })();
    running.add(task);
    task.finally(() => {
      running.delete(task);
      wake?.();
    });
  };

  while (!o.stopping.aborted && !o.full?.()) {
    let fetched: { id: string; data: { batch: string; line: number } }[] = [];
    try {
      const now = Date.now();
      if (now - lastExpire > beatMs) {
        lastExpire = now;
        await o.boss.expire();
      }
      const room = o.concurrency - busy;
      if (room > 0) fetched = (await o.boss.fetch(QUEUE_NAME, { batchSize: room })) as typeof fetched;
    } catch {
      // The server is away (a restart): try again shortly; pg's pool reconnects.
      await sleep(500);
      continue;
    }
    for (const job of fetched) start(job);
    if (fetched.length) continue;
    if (o.untilEmpty && running.size === 0) {
      const left = await unfinished(o.db).catch(() => 1);
      if (left === 0) break;
    }
    // A finished job, a signal, or the poll interval: whichever comes first. A worker told to stop once
    // the queue is empty, with nothing of its own left, is only waiting for others' last jobs to end
    // (or their leases to run out): it looks more often, so that the batch's end is seen soon.
    const idleUntilEmpty = o.untilEmpty && running.size === 0;
    await firstOf(woken(), idleUntilEmpty ? 100 : busy < o.concurrency ? 250 : 1000);
  }
  await Promise.all(running);
  return summary;
}

/**
 * Waits until `event` settles or `ms` have passed, whichever is first, and clears the timer: left pending,
 * the poll's last timers kept a finished worker's process alive for up to a second.
 */
export async function firstOf(event: Promise<void>, ms: number): Promise<void> {
  const timer = new AbortController();
  try {
    await Promise.race([event, sleep(ms, undefined, { signal: timer.signal }).catch(() => {})]);
  } finally {
    timer.abort();
  }
}
