#!/usr/bin/env node
// `agent research --batch` as users run it: the built CLI, spawned, answering 50 questions against a
// loopback model (OpenAI Chat Completions, streamed) whose every call takes a fixed time. Each question
// plans, reads three local documents (extracted in parallel) and writes, so its critical path is
// plan + extract + write; a batch of N questions at --parallel p ideally takes ceil(N / p) of those.
// Prints, per --parallel p, the batch's model-call span (first plan request → last write reply) beside
// the ideal at the fixed latencies and beside a reference measured just before it on the same machine: a
// bare Node process making the same calls with the same parallelism (bench/support/bare-client.mjs), which
// shows what this machine's load adds to every call; then the batch's wall time, CPU time per question
// (load does not inflate it) and mean time per step. Also one question alone (`agent research`).
// Usage: npm run build && node bench/batch.mjs [questions] [--parallel 1,2,4] [--cpu-prof]   (batch profiles land in ./prof/)
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { agentEnv, policyDocs, researchFlags, chatSse as sse } from './support/loopback.mjs';

const args = process.argv.slice(2);
const QUESTIONS = Number(args.find((a) => /^\d+$/.test(a)) ?? 50);
const flag = args.indexOf('--parallel');
const PARALLEL = (flag >= 0 ? args[flag + 1] : '1,2,4').split(',').map(Number);
const profile = args.includes('--cpu-prof');
const MS = { plan: 150, extract: 300, write: 300 };
const PER_QUESTION = MS.plan + MS.extract + MS.write;
const bin = fileURLToPath(new URL('../bin/agent.js', import.meta.url));

const home = mkdtempSync(join(tmpdir(), 'agent-bench-batch-'));
const docs = policyDocs(home);

let first = 0;
let last = 0;
let calls = 0;

function modelReply(body) {
  const system = body.messages.find((m) => m.role === 'system')?.content ?? '';
  if (system.includes('You plan research')) {
    const n = Number(/limit of item (\d+)/.exec(JSON.stringify(body.messages))?.[1] ?? 0);
    const documents = [0, 1, 2].map((k) => `doc-${(n + k) % 30}`);
    return { step: 'plan', ms: MS.plan, text: JSON.stringify({ documents, searches: [] }) };
  }
  if (system.includes('You extract facts'))
    return { step: 'extract', ms: MS.extract, text: '- The limit is $5.' };
  return { step: 'write', ms: MS.write, text: 'The limit is $5 [1].' };
}

const server = createServer((req, res) => {
  let raw = '';
  req.on('data', (d) => {
    raw += d;
  });
  req.on('end', () => {
    const reply = modelReply(JSON.parse(raw));
    calls++;
    if (reply.step === 'plan' && !first) first = performance.now();
    setTimeout(() => {
      if (reply.step === 'write') last = performance.now();
      res.writeHead(200, { 'content-type': 'text/event-stream' }).end(sse(reply.text));
    }, reply.ms);
  });
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${server.address().port}`;

const env = agentEnv(base, home, { NO_COLOR: '1' });
const common = researchFlags(docs);
const question = (i) => `What is the limit of item ${i} (run ${i})?`;

const cpuHook = new URL('./support/cpu-at-exit.mjs', import.meta.url).href;

/** Runs the CLI; resolves with wall time, model-call span, CPU time (ms), model calls and stdout. */
function run(extra, db, input) {
  first = 0;
  last = 0;
  calls = 0;
  const cpuFile = join(home, 'cpu.json');
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const node = [
      '--import',
      cpuHook,
      ...(profile && extra.includes('--batch') ? ['--cpu-prof', '--cpu-prof-dir=prof'] : []),
    ];
    const child = spawn(process.execPath, [...node, bin, ...common, ...extra], {
      env: { ...env, AGENT_DB: db, BENCH_CPU_FILE: cpuFile },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.stdin.end(input ?? '');
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`agent exited ${code}: ${stderr}`));
      const { user, system } = JSON.parse(readFileSync(cpuFile, 'utf8'));
      const cpu = (user + system) / 1000;
      resolve({ wall: performance.now() - started, span: last - first, cpu, calls, stdout });
    });
  });
}

const bareClient = fileURLToPath(new URL('./support/bare-client.mjs', import.meta.url));
/** The same calls from a bare Node process (see support/bare-client.mjs): this machine's floor, in ms. */
function floor(p) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bareClient, base, String(QUESTIONS), String(p)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.on('exit', (code) =>
      code === 0 ? resolve(Number(out)) : reject(new Error(`bare client exited ${code}`)),
    );
  });
}

const pct = (value, ideal) => `${value >= ideal ? '+' : ''}${(((value - ideal) / ideal) * 100).toFixed(1)}%`;
const s = (ms) => `${(ms / 1000).toFixed(2)} s`;

// Every run gets a fresh database (nothing is skipped), whose index is built once beforehand.
const freshDb = async () => {
  const db = join(mkdtempSync(join(home, 'db-')), 'agent.db');
  await run(['--extractive', 'warm up the index'], db);
  return db;
};

const singles = [];
for (let i = 0; i < 3; i++) singles.push(await run([question(i)], await freshDb()));
singles.sort((a, b) => a.span - b.span);
const single = singles[1];
console.log(
  `reference, one question alone (agent research, median of 3): model-call span ${s(single.span)} (fixed latencies ${s(PER_QUESTION)}), wall ${s(single.wall)}, CPU ${single.cpu.toFixed(0)} ms`,
);
console.log(
  `${QUESTIONS} questions, each plan ${MS.plan} ms + 3 extractions ${MS.extract} ms at once + write ${MS.write} ms = ${PER_QUESTION} ms; ideal at --parallel p: ceil(${QUESTIONS} / p) x ${PER_QUESTION} ms; bare client: the same calls from a bare Node process, just before:`,
);
const file = Array.from({ length: QUESTIONS }, (_, i) => question(i)).join('\n');
for (const p of PARALLEL) {
  const bare = await floor(p);
  const r = await run(['--batch', '-', '--parallel', String(p)], await freshDb(), file);
  const lines = r.stdout.trimEnd().split('\n');
  if (lines.length !== QUESTIONS) throw new Error(`expected ${QUESTIONS} lines, got ${lines.length}`);
  const steps = {};
  for (const line of lines)
    for (const [step, sec] of Object.entries(JSON.parse(line).timings ?? {}))
      steps[step] = (steps[step] ?? 0) + (sec * 1000) / QUESTIONS;
  const perStep = Object.entries(steps)
    .map(([step, ms]) => `${step} ${ms.toFixed(0)}`)
    .join(', ');
  const ideal = Math.ceil(QUESTIONS / p) * PER_QUESTION;
  console.log(
    `  --parallel ${p}: span ${s(r.span)} · ideal ${s(ideal)} (${pct(r.span, ideal)}) · bare client ${s(bare)} (${pct(r.span, bare)}) · wall ${s(r.wall)} · CPU ${(r.cpu / QUESTIONS).toFixed(0)} ms a question · ${r.calls} model calls`,
  );
  console.log(`    mean ms a question by step: ${perStep}`);
}
server.close();
