import { describe, expect, it } from 'vitest';
import { runCli, tempDb } from '../support/cli.js';
import { batchFile, jsonLines, question, queueArgs, queueEnv, queueWorld } from '../support/queue-world.js';

// `agent research --batch FILE --queue`, `agent worker` and `agent batch`, end to end on a team database
// (PGlite here, Debian's PostgreSQL in CI) with a loopback team.model.

const { world: team, cli, enqueue, status } = queueWorld();

const env = () => queueEnv(team.db, team.model);
const drain = (...more: string[]) => cli(['worker', '--until-empty', ...more]);
const reportsOf = async (q: string) =>
  (
    await team.db.sql<{ n: number }>(
      "SELECT count(*)::int AS n FROM research_runs WHERE question = $1 AND status = 'done'",
      [q],
    )
  )[0]!.n;

describe('without a team database', () => {
  it('--queue and worker say in one line that they need AGENT_DATABASE_URL, exit 2', async () => {
    for (const args of [queueArgs(batchFile([question(1)])), ['worker'], ['batch', 'list']]) {
      const r = await runCli(args, { env: { AGENT_DB: tempDb() } });
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/AGENT_DATABASE_URL/);
    }
    const cost = await runCli(['cost', '--by', 'batch'], { env: { AGENT_DB: tempDb() } });
    expect(cost.code).toBe(2);
    expect(cost.stderr).toMatch(
      /--by batch groups the calls of queued batches, which only a team database holds/,
    );
  });
});

describe('agent research --batch --queue and agent worker', () => {
  it('queues a batch, a worker answers it once per question, and batch list/status/results show it', async () => {
    const qs = [question(1), question(2), '{not json', JSON.stringify({ question: question(3), depth: 0 })];
    const id = await enqueue(qs);
    expect(id).toMatch(/^[0-9a-f]{8}$/);
    const before = await status(id);
    expect(before.counts).toMatchObject({ total: 4, queued: 2, failed: 2, done: 0 });
    expect(before.failures.map((f: { line: number }) => f.line)).toEqual([3, 4]);

    const w = await drain('--concurrency', '2');
    expect(w.stderr).not.toMatch(/\n\s+at /);
    expect(w.code).toBe(0);
    const after = await status(id);
    expect(after.counts).toMatchObject({ total: 4, done: 2, failed: 2, queued: 0, running: 0 });
    expect(after.state).toBe('done with failures');

    const results = jsonLines((await cli(['batch', 'results', id])).stdout);
    expect(results.map((r) => r.line)).toEqual([1, 2, 3, 4]);
    expect(results[0]).toMatchObject({
      line: 1,
      mode: 'model',
      answer: 'The limit is listed [1].',
      id: expect.any(Number),
    });
    expect(results[2]).toMatchObject({ line: 3, error: expect.stringMatching(/not valid JSON/) });
    for (const n of [1, 2]) expect(await reportsOf(question(n))).toBe(1);

    // Every model call of the batch carries it: `agent cost --by batch`.
    const cost = JSON.parse((await cli(['cost', '--by', 'batch', '--json'])).stdout);
    const row = cost.rows.find((r: { key: string }) => r.key === id);
    expect(row.calls).toBe(2 * (1 + 3 + 1)); // plan, three extractions, write: per question
    expect(row.costUsd).toBeGreaterThan(0);

    const list = (await cli(['batch', 'list'])).stdout;
    expect(list).toMatch(new RegExp(`${id}.*done with failures.*2/4 done, 2 failed`));
  });

  it('--wait shows the batch until done and prints each line as --batch does', async () => {
    const file = batchFile([question(4), question(5)]);
    // (None before the first command has made the tables.)
    const batches = () =>
      team.db.sql<{ n: number }>('SELECT count(*)::int AS n FROM batches').then(
        (r) => r[0]!.n,
        () => 0,
      );
    const before = await batches();
    const waiting = runCli(queueArgs(file, '--wait'), { env: env() });
    // The worker starts once the batch is queued: --until-empty would otherwise find nothing to do.
    while ((await batches()) === before) await new Promise((r) => setTimeout(r, 50));
    const [r, w] = await Promise.all([waiting, drain()]);
    expect(w.code).toBe(0);
    expect(r.code).toBe(0);
    const lines = jsonLines(r.stdout).sort((a, b) => (a.line as number) - (b.line as number));
    expect(lines.map((l) => [l.line, l.answer])).toEqual([
      [1, 'The limit is listed [1].'],
      [2, 'The limit is listed [1].'],
    ]);
    expect(r.stderr).toMatch(/Queued batch [0-9a-f]{8}: 2 question/);
    expect(r.stderr).toMatch(/Batch of 2 questions: 2 answered/);
  });

  it('two workers drain a batch together with no question answered twice', async () => {
    const qs = Array.from({ length: 6 }, (_, i) => question(10 + i));
    const id = await enqueue(qs);
    const [a, b] = await Promise.all([drain(), drain()]);
    expect([a.code, b.code]).toEqual([0, 0]);
    expect((await status(id)).counts).toMatchObject({ done: 6, failed: 0 });
    for (const q of qs) expect(await reportsOf(q)).toBe(1);
    const plans = await team.db.sql<{ n: number }>(
      "SELECT count(*)::int AS n FROM usage_ledger WHERE batch_id = $1 AND step = 'plan'",
      [id],
    );
    expect(plans[0]!.n).toBe(6);
  });

  it('AGENT_PROVIDER_CONCURRENCY keeps the model calls of all workers to its limit', async () => {
    const id = await enqueue([question(70), question(71), question(72)]);
    const limited = { ...env(), AGENT_PROVIDER_CONCURRENCY: '1' };
    const [a, b] = await Promise.all([
      runCli(['worker', '--until-empty'], { env: limited }),
      runCli(['worker', '--until-empty'], { env: limited }),
    ]);
    expect([a.code, b.code]).toEqual([0, 0]);
    expect((await status(id)).counts).toMatchObject({ done: 3 });
    expect(team.model.maxInFlight).toBe(1);
    const refused = await runCli(['worker'], { env: { ...env(), AGENT_PROVIDER_CONCURRENCY: 'lots' } });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/AGENT_PROVIDER_CONCURRENCY=lots is not a limit/);
  });

  it('a job delivered again after its question was answered writes no second report', async () => {
    const id = await enqueue([question(75)]);
    expect((await drain()).code).toBe(0);
    const calls = team.model.requests.length;
    // As if pg-boss delivered it again (a lease that ran out just as the worker finished).
    await team.db.sql(
      "UPDATE agent_queue.job SET state = 'created', completed_on = NULL WHERE data->>'batch' = $1",
      [id],
    );
    const again = await drain();
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(new RegExp(`batch ${id} line 1: finished`));
    expect(team.model.requests.length).toBe(calls);
    expect(await reportsOf(question(75))).toBe(1);
  });

  it('a 429 delays the job with back-off and never fails it', async () => {
    team.model.limit.set(question(20), 5); // more than the SDK's own retries
    const id = await enqueue([question(20)]);
    const w = await drain();
    expect(w.code).toBe(0);
    expect(w.stderr).toMatch(/to be tried again \(the provider is rate limiting \(429\)\)/);
    expect((await status(id)).counts).toMatchObject({ done: 1, failed: 0 });
    expect(await reportsOf(question(20))).toBe(1);
  });

  it('cancel drops the queued questions; retry queues the failed ones again', async () => {
    const cancelled = await enqueue([question(30), question(31)]);
    const c = await cli(['batch', 'cancel', cancelled]);
    expect(c.code).toBe(0);
    expect(c.stdout).toMatch(/2 queued question\(s\) will not be run/);
    team.model.refuse.add(question(32));
    const failing = await enqueue([question(32), question(33)]);
    expect((await drain()).code).toBe(0);
    expect((await status(cancelled)).counts).toMatchObject({ cancelled: 2, done: 0 });
    expect((await status(cancelled)).state).toBe('cancelled');
    const s = await status(failing);
    expect(s.counts).toMatchObject({ done: 1, failed: 1 });
    expect(s.failures).toEqual([{ line: 1, error: expect.stringMatching(/plan step failed.*refused/) }]);

    team.model.refuse.clear();
    const r = await cli(['batch', 'retry', failing, '--json']);
    expect(JSON.parse(r.stdout)).toEqual({ id: failing, queued: 1 });
    expect((await drain()).code).toBe(0);
    expect((await status(failing)).counts).toMatchObject({ done: 2, failed: 0 });
    expect(await reportsOf(question(32))).toBe(1);
    const unknown = await cli(['batch', 'status', 'ffffffff']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/There is no batch ffffffff/);
  });
});
