#!/usr/bin/env node
// `agent research --batch` as users run it: the built CLI, spawned, answering 50 questions against a
// loopback model (OpenAI Chat Completions, streamed) whose every call takes a fixed time. Each question
// plans, reads three local documents (extracted in parallel) and writes, so its critical path is
// plan + extract + write; a batch of N questions at --parallel p ideally takes ceil(N / p) of those.
// Prints, per --parallel, the wall time of the whole command and the model-call span (first plan request
// → last write reply) beside that ideal, and as a reference measured in the same run, one question
// answered alone (`agent research`, no batch).
// Usage: npm run build && node bench/batch.mjs [questions] [--parallel 1,2,4]
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const QUESTIONS = Number(args.find((a) => /^\d+$/.test(a)) ?? 50);
const flag = args.indexOf('--parallel');
const PARALLEL = (flag >= 0 ? args[flag + 1] : '1,2,4').split(',').map(Number);
const MS = { plan: 150, extract: 300, write: 300 };
const PER_QUESTION = MS.plan + MS.extract + MS.write;
const bin = fileURLToPath(new URL('../bin/agent.js', import.meta.url));

const home = mkdtempSync(join(tmpdir(), 'agent-bench-batch-'));
const docs = join(home, 'docs');
mkdirSync(docs);
for (let i = 0; i < 30; i++)
  writeFileSync(
    join(docs, `doc-${i}.md`),
    `# Policy ${i}\n\n${'The limit for item %d is $%d. '.repeat(40).replace(/%d/g, String(i))}\n`,
  );

let first = 0;
let last = 0;
let calls = 0;

function sse(text) {
  const chunk = (delta, finish = null) =>
    `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  return (
    chunk({ role: 'assistant', content: text }) +
    chunk({}, 'stop') +
    `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 } })}\n\n` +
    'data: [DONE]\n\n'
  );
}

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

const env = {
  ...Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !/^(ANTHROPIC_|OPENAI_|AGENT_|BRAVE_|TAVILY_|SEARXNG_)/.test(k),
    ),
  ),
  OPENAI_BASE_URL: `${base}/v1`,
  OPENAI_API_KEY: 'bench',
  XDG_CONFIG_HOME: join(home, 'config'),
  XDG_DATA_HOME: join(home, 'data'),
  NO_COLOR: '1',
};
const common = [
  'research',
  '--provider',
  'openai-compatible',
  '--small-model',
  's',
  '--large-model',
  'l',
  '--content',
  docs,
];
const question = (i) => `What is the limit of item ${i} (run ${i})?`;

/** Runs the CLI; resolves with wall time, model-call span and model calls. */
function run(extra, db, input) {
  first = 0;
  last = 0;
  calls = 0;
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...common, ...extra], {
      env: { ...env, AGENT_DB: db },
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
      resolve({ wall: performance.now() - started, span: last - first, calls, stdout });
    });
  });
}

const pct = (value, ideal) => `${(((value - ideal) / ideal) * 100).toFixed(1)}%`;
const s = (ms) => `${(ms / 1000).toFixed(2)} s`;

// Every run gets a fresh database (nothing is skipped), whose index is built once beforehand.
const freshDb = async () => {
  const db = join(mkdtempSync(join(home, 'db-')), 'agent.db');
  await run(['--extractive', 'warm up the index'], db);
  return db;
};

const single = await run([question(0)], await freshDb());
console.log(
  `reference: one question alone: wall ${s(single.wall)}, model-call span ${s(single.span)} (ideal ${s(PER_QUESTION)}, overhead ${pct(single.span, PER_QUESTION)})`,
);
console.log(
  `${QUESTIONS} questions, each plan ${MS.plan} ms + 3 extractions ${MS.extract} ms (in parallel) + write ${MS.write} ms:`,
);
const file = Array.from({ length: QUESTIONS }, (_, i) => question(i)).join('\n');
for (const p of PARALLEL) {
  const r = await run(['--batch', '-', '--parallel', String(p)], await freshDb(), file);
  const lines = r.stdout.trimEnd().split('\n').length;
  if (lines !== QUESTIONS) throw new Error(`expected ${QUESTIONS} lines, got ${lines}`);
  const ideal = Math.ceil(QUESTIONS / p) * PER_QUESTION;
  console.log(
    `  --parallel ${p}: wall ${s(r.wall)}, model-call span ${s(r.span)} · ideal ${s(ideal)} · overhead: span ${pct(r.span, ideal)}, wall ${pct(r.wall, ideal)} · ${r.calls} model calls`,
  );
}
server.close();
