#!/usr/bin/env node
// `agent worker` processes draining queued batches (`agent research --batch FILE --queue`) against a
// loopback model (OpenAI Chat Completions, streamed) whose every call takes a fixed time: each question
// plans (200 ms), extracts three local documents at once (400 ms) and writes (400 ms).
//   1. Throughput: 200 questions drained by 1, 2 and 4 worker processes (--concurrency 4 each, or
//      --concurrency=N): wall time and the ratio against one worker. On 2 cores, 4 workers at 4 jobs
//      each are 16 runs at once, and the machine's CPU (not the queue) is what the ratio shows.
//   2. kill -9, twice, in the middle of a batch (a replacement started each time): every question
//      answered once, no duplicate report, and the ledger holding each question's plan and write once and
//      its extractions once, plus those in flight at a kill.
//   3. SIGTERM of a worker: its running jobs are handed back and finished by another worker, how soon.
//   4. A server restart in the middle (AGENT_BENCH_RESTART, a shell command such as
//      `pg_ctlcluster 15 main restart`): the workers reconnect and the batch finishes.
// Needs a PostgreSQL server: AGENT_BENCH_DATABASE_URL=postgres://… (a database the bench may fill).
// Usage: npm run build && AGENT_BENCH_DATABASE_URL=… AGENT_BENCH_RESTART='…' node bench/queue.mjs [questions] [--concurrency=N] [--faults]
// (--faults: only parts 2 to 4)
import { execSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { agentEnv, policyDocs, researchFlags, chatSse as sse } from './support/loopback.mjs';

const url = process.env.AGENT_BENCH_DATABASE_URL;
if (!url) {
  console.error('bench/queue.mjs needs a PostgreSQL server: AGENT_BENCH_DATABASE_URL=postgres://…');
  process.exit(2);
}
const QUESTIONS = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? 200);
const MS = { plan: 200, extract: 400, write: 400 };
const CONCURRENCY = Number(process.argv.find((a) => a.startsWith('--concurrency='))?.slice(14) ?? 4);
const bin = fileURLToPath(new URL('../bin/agent.js', import.meta.url));
const home = mkdtempSync(join(tmpdir(), 'agent-bench-queue-'));
const docs = policyDocs(home);

let calls = 0;
const server = createServer((req, res) => {
  let raw = '';
  req.on('data', (d) => {
    raw += d;
  });
  req.on('end', () => {
    const body = JSON.parse(raw);
    const system = body.messages.find((m) => m.role === 'system')?.content ?? '';
    let ms = MS.write;
    let text = 'The limit is $5 [1].';
    if (system.includes('You plan research')) {
      const n = Number(/limit of item (\d+)/.exec(JSON.stringify(body.messages))?.[1] ?? 0);
      ms = MS.plan;
      text = JSON.stringify({ documents: [0, 1, 2].map((k) => `doc-${(n + k) % 30}`), searches: [] });
    } else if (system.includes('You extract facts')) {
      ms = MS.extract;
      text = '- The limit is $5.';
    }
    calls++;
    setTimeout(() => res.writeHead(200, { 'content-type': 'text/event-stream' }).end(sse(text)), ms);
  });
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const env = {
  ...agentEnv(`http://127.0.0.1:${server.address().port}`, home, { NO_COLOR: '1' }),
  AGENT_DATABASE_URL: url,
  AGENT_QUEUE_LEASE: '5',
};
const admin = new pg.Pool({ connectionString: url, max: 1 });
admin.on('error', () => {});
const sql = async (text, params) => {
  for (;;) {
    try {
      return (await admin.query(text, params)).rows;
    } catch (error) {
      // The server restarting: ask again.
      if (!/terminat|ECONNREFUSED|shutting down|starting up|Connection/i.test(String(error))) throw error;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
};

/** Runs the CLI to its end; stdout. */
function cli(args, input) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      err += d;
    });
    child.stdin.end(input ?? '');
    child.on('exit', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`agent ${args[0]} exited ${code}: ${err}`)),
    );
  });
}

const cpuHook = new URL('./support/cpu-at-exit.mjs', import.meta.url).href;
let workers = 0;
/** A worker process; `done` resolves with its stderr and CPU time (ms; none after kill -9) when it exits. */
function worker(...extra) {
  const cpuFile = join(home, `cpu-${++workers}.json`);
  const args = ['--import', cpuHook, bin, 'worker', '--concurrency', String(CONCURRENCY), ...extra];
  const child = spawn(process.execPath, args, {
    env: { ...env, BENCH_CPU_FILE: cpuFile },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (d) => {
    err += d;
  });
  const cpu = () => {
    try {
      const { user, system } = JSON.parse(readFileSync(cpuFile, 'utf8'));
      return (user + system) / 1000;
    } catch {
      return 0;
    }
  };
  const done = new Promise((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal, err, cpu: cpu() })),
  );
  return { child, done };
}

let run = 0;
/** Queues `n` questions no earlier batch asked (nothing is skipped or cached); the batch id. */
// Questions unique to this invocation, so that the audit of a database the bench filled before does not
// count that run's reports of the same questions as duplicates.
const TAG = Date.now().toString(36);
async function enqueue(n) {
  run++;
  const file = join(home, `batch-${run}.txt`);
  writeFileSync(
    file,
    Array.from({ length: n }, (_, i) => `What is the limit of item ${i} (batch ${run}, ${TAG})?`).join('\n'),
  );
  return (await cli([...researchFlags(docs), '--batch', file, '--queue'])).trim();
}
const counts = async (id) =>
  Object.fromEntries(
    (
      await sql('SELECT state, count(*)::int AS n FROM batch_items WHERE batch_id = $1 GROUP BY state', [id])
    ).map((r) => [r.state, r.n]),
  );
async function until(id, done) {
  for (;;) {
    const c = await counts(id);
    if ((c.done ?? 0) >= done) return c;
    await new Promise((r) => setTimeout(r, 200));
  }
}
/** Reports per question and ledger rows per step per question, for the batch. */
async function audit(id) {
  const [{ dup }] = await sql(
    `SELECT count(*)::int AS dup FROM (SELECT r.question FROM research_runs r JOIN batch_items i
       ON i.batch_id = $1 AND i.question = r.question WHERE r.status = 'done' GROUP BY r.question HAVING count(*) > 1) d`,
    [id],
  );
  const steps = await sql(
    `SELECT step, count(*)::int AS rows, count(DISTINCT run_id)::int AS runs,
       max(n)::int AS most FROM (SELECT step, run_id, count(*) OVER (PARTITION BY step, run_id) AS n FROM usage_ledger
       WHERE batch_id = $1) s GROUP BY step ORDER BY step`,
    [id],
  );
  return { dup, steps: Object.fromEntries(steps.map((s) => [s.step, s])) };
}
const s = (ms) => `${(ms / 1000).toFixed(1)} s`;

// Warm-up: the schema, the queue and the index of the documents, made once.
await cli([...researchFlags(docs), '--extractive', 'warm up the index']);

console.log(
  `${QUESTIONS} questions, each plan ${MS.plan} ms + 3 extractions ${MS.extract} ms at once + write ${MS.write} ms; workers at --concurrency ${CONCURRENCY}, lease 5 s`,
);
const walls = {};
for (const n of process.argv.includes('--faults') ? [] : [1, 2, 4]) {
  const id = await enqueue(QUESTIONS);
  const started = performance.now();
  const ws = Array.from({ length: n }, () => worker('--until-empty'));
  let cpu = 0;
  for (const w of ws) {
    const r = await w.done;
    if (r.code !== 0) throw new Error(`worker exited ${r.code}: ${r.err}`);
    cpu += r.cpu;
  }
  walls[n] = performance.now() - started;
  const c = await counts(id);
  const ideal = Math.ceil(QUESTIONS / (n * CONCURRENCY)) * (MS.plan + MS.extract + MS.write);
  console.log(
    `  ${n} worker(s): ${s(walls[n])} (ideal ${s(ideal)}), ${c.done} answered${n > 1 ? `, ${(walls[1] / walls[n]).toFixed(2)}x one worker` : ''}; workers' CPU ${(cpu / QUESTIONS).toFixed(0)} ms a question`,
  );
}

{
  const id = await enqueue(QUESTIONS);
  const ws = [worker('--until-empty'), worker('--until-empty')];
  for (const at of [Math.floor(QUESTIONS / 4), Math.floor(QUESTIONS / 2)]) {
    await until(id, at);
    const victim = ws.shift();
    victim.child.kill('SIGKILL');
    await victim.done;
    ws.push(worker('--until-empty'));
  }
  for (const w of ws) await w.done;
  const c = await counts(id);
  const { dup, steps } = await audit(id);
  const ex = steps.extract;
  console.log(
    `kill -9 twice: ${c.done ?? 0} of ${QUESTIONS} answered, ${dup} duplicate reports; ledger: plan ${steps.plan.rows} rows for ${steps.plan.runs} questions (most ${steps.plan.most} a question), write ${steps.write.rows} for ${steps.write.runs}, extract ${ex.rows} for ${ex.runs} questions (${ex.rows - 3 * ex.runs} beyond 3 each: calls in flight at the kills)`,
  );
}

{
  const id = await enqueue(40);
  const a = worker();
  await until(id, 8);
  a.child.kill('SIGTERM');
  const stopped = await a.done;
  const handed = (stopped.err.match(/handed back/g) ?? []).length;
  const started = performance.now();
  const b = worker('--until-empty');
  await b.done;
  const c = await counts(id);
  const { dup, steps } = await audit(id);
  console.log(
    `SIGTERM: worker exited ${stopped.code} having handed back ${handed} running job(s); another worker finished the remaining ${40 - 8}+ in ${s(performance.now() - started)}; ${c.done} of 40 answered, ${dup} duplicate reports, plan rows ${steps.plan.rows} for ${steps.plan.runs} questions`,
  );
}

const restart = process.env.AGENT_BENCH_RESTART;
if (restart) {
  const id = await enqueue(100);
  const ws = [worker('--until-empty'), worker('--until-empty')];
  await until(id, 30);
  const t = performance.now();
  execSync(restart, { stdio: 'ignore' });
  const down = performance.now() - t;
  for (const w of ws) {
    const r = await w.done;
    if (r.code !== 0) console.log(`  a worker exited ${r.code}: ${r.err.split('\n').slice(-3).join(' | ')}`);
  }
  const c = await counts(id);
  const { dup } = await audit(id);
  console.log(
    `server restart (${s(down)}) after 30 of 100: ${c.done ?? 0} of 100 answered, ${dup} duplicate reports, ${c.failed ?? 0} failed`,
  );
} else console.log('server restart: skipped (set AGENT_BENCH_RESTART to a command that restarts the server)');

console.log(`${calls} model calls in all`);
await admin.end();
server.close();
