import { describe, expect, it } from 'vitest';
import { startCli } from '../support/cli.js';
import { batchFile, question, queueArgs, queueEnv, queueWorld, resolver } from '../support/queue-world.js';
import { prices } from '../support/research-world.js';

// The queue when workers go away: kill -9 mid-job (another worker continues from the recorded progress
// once the lease runs out, paying nothing twice), SIGTERM (the job is handed back at once), and a batch's
// shared purse that runs out.

const { world: team, cli, enqueue, status } = queueWorld();

/** The batch's ledger rows per step. */
const steps = async (id: string) =>
  Object.fromEntries(
    (
      await team.db.sql<{ step: string; n: number }>(
        'SELECT step, count(*)::int AS n FROM usage_ledger WHERE batch_id = $1 GROUP BY step',
        [id],
      )
    ).map((r) => [r.step, r.n]),
  );
const requests = (q: string, step: string) =>
  team.model.requests.filter(
    (r) => JSON.stringify(r.body).includes(step) && JSON.stringify(r.body).includes(q),
  ).length;
const planRequests = (q: string) => requests(q, 'You plan research');
const extractRequests = (q: string) => requests(q, 'You extract facts');

/** Documents of the question's run whose facts are kept. */
const factsKept = async (q: string) =>
  (
    await team.db.sql<{ n: number }>(
      `SELECT count(*)::int AS n FROM run_sources s JOIN research_runs r ON r.id = s.run_id
       WHERE r.question = $1 AND s.facts IS NOT NULL`,
      [q],
    )
  )[0]!.n;

/**
 * A worker in the middle of the question's extractions: Doc 3's held by the model, the other two kept.
 * Waiting for those two makes a kill land on one call in flight, not in the moment between an answered
 * call's ledger row and its facts (a call paid for and made again, which a kill there truly costs).
 */
async function workerMidJob(q: string) {
  const hold = { question: q, reached: resolver(), release: resolver() };
  team.model.hold = hold;
  const worker = startCli(['worker'], { env: queueEnv(team.db, team.model) });
  await hold.reached.promise;
  while ((await factsKept(q)) < 2) await new Promise((r) => setTimeout(r, 20));
  return { worker, release: () => hold.release.arrived() };
}

describe('agent worker, when workers go away', () => {
  it('kill -9 mid-job: another worker finishes it after the lease; the plan and extractions are paid once', async () => {
    const q = question(40);
    const id = await enqueue([q]);
    const { worker, release } = await workerMidJob(q);
    worker.child.kill('SIGKILL');
    await worker.done;
    release();
    team.model.hold = undefined;
    const other = await cli(['worker', '--until-empty']);
    expect(other.stderr).not.toMatch(/\n\s+at /);
    expect(other.code).toBe(0);
    expect((await status(id)).counts).toMatchObject({ done: 1, failed: 0 });
    const reports = await team.db.sql<{ n: number }>(
      "SELECT count(*)::int AS n FROM research_runs WHERE question = $1 AND status = 'done'",
      [q],
    );
    expect(reports[0]?.n).toBe(1);
    expect(planRequests(q)).toBe(1);
    const ledger = await steps(id);
    expect(ledger.plan).toBe(1);
    expect(ledger.write).toBe(1);
    // Each document's extraction recorded once: the one in flight at the kill was made again, and only the
    // second was answered and recorded; the kept two were not made again.
    expect(ledger.extract).toBe(3);
    expect(extractRequests(q)).toBe(4);
  });

  it('SIGTERM hands the running job back: the next worker continues it at once', async () => {
    const q = question(41);
    const id = await enqueue([q]);
    const { worker, release } = await workerMidJob(q);
    worker.child.kill('SIGTERM');
    const stopped = await worker.done;
    release();
    team.model.hold = undefined;
    expect(stopped.code).toBe(0);
    expect(stopped.stderr).toMatch(/stopping: no new jobs/);
    expect(stopped.stderr).toMatch(new RegExp(`batch ${id} line 1: handed back`));
    expect((await status(id)).counts).toMatchObject({ queued: 1, running: 0 });
    const started = Date.now();
    const other = await cli(['worker', '--until-empty'], { AGENT_QUEUE_LEASE: '60' });
    expect(other.code).toBe(0);
    // Not after a lease (60 s here): at once.
    expect(Date.now() - started).toBeLessThan(30_000);
    expect((await status(id)).counts).toMatchObject({ done: 1 });
    expect(planRequests(q)).toBe(1);
    expect((await steps(id)).plan).toBe(1);
  });

  it('cancel stops a running question at its next step and keeps its run unfinished', async () => {
    const q = question(45);
    const id = await enqueue([q]);
    const { worker, release } = await workerMidJob(q);
    const c = await cli(['batch', 'cancel', id]);
    expect(c.code).toBe(0);
    // The worker notices within a heartbeat and stops the run; the held call is cancelled with it.
    for (let s = await status(id); s.counts.running > 0; s = await status(id))
      await new Promise((r) => setTimeout(r, 100));
    release();
    team.model.hold = undefined;
    expect((await status(id)).counts).toMatchObject({ cancelled: 1, done: 0 });
    worker.child.kill('SIGTERM');
    expect((await worker.done).code).toBe(0);
    const runs = await team.db.sql<{ status: string }>(
      'SELECT status FROM research_runs WHERE question = $1',
      [q],
    );
    expect(runs).toEqual([{ status: 'unfinished' }]);
  });

  it('--max-cost on --queue is one purse for the batch: once spent, no question of it is started', async () => {
    // Dear models that use nearly all their output caps: a question costs about $44 (plan $4, three
    // extractions $8 each, write $16), so a $60 purse cannot pay for a third, and the cap is never passed.
    const dear = {
      AGENT_PRICES: prices({ small: { input: 100, output: 1000 }, large: { input: 100, output: 1000 } }),
    };
    team.model.output = { plan: 4000, extract: 8000, write: 16_000 };
    const file = batchFile([50, 51, 52, 53].map(question));
    const r = await cli(queueArgs(file, '--max-cost', '60', '--concurrency', '1'), dear);
    expect(r.code).toBe(0);
    const id = r.stdout.trim();
    const w = await cli(['worker', '--until-empty'], dear);
    expect(w.code).toBe(0);
    const s = await status(id);
    // One answered in full, perhaps one more from what it could read, none started once the purse was spent.
    expect(s.counts.done).toBeGreaterThanOrEqual(1);
    expect(s.counts.failed).toBeGreaterThanOrEqual(1);
    expect(s.counts.done + s.counts.failed).toBe(4);
    expect(s.capSpent).toBe(true);
    expect(s.state).toBe('cap spent');
    expect(s.spentUsd).toBeGreaterThan(40);
    expect(s.spentUsd).toBeLessThanOrEqual(60);
    for (const f of s.failures) expect(f.error).toMatch(/the batch's cap \(--max-cost\) is spent/);
    const text = (await cli(['batch', 'status', id], dear)).stdout;
    expect(text).toMatch(/The batch's cap \(--max-cost\) is spent: workers start none of its questions/);
  });
});
