#!/usr/bin/env node
// The research chain as users run it: the built CLI, spawned, against a loopback model (OpenAI Chat
// Completions, streamed), a loopback search service (Brave's wire format) and loopback pages, each with a
// fixed latency, so the chain's critical path is known exactly. Prints the model-call span beside that
// path and the timeline of one run (per source: search done, page served, extraction start and end).
//
// Scenario (fixed latencies): plan 400 ms; 3 documents + 3 searches × 2 results; extractions 400 ms, one
// long document's extraction 1,200 ms; one page served after 1,200 ms; write 400 ms. Critical path: plan →
// slow page → its extraction → write = 400 + 1,200 + 400 + 400 = 2,400 ms.
// Usage: npm run build && node bench/chain.mjs [runs] [--cpu-prof]   (profiles land in ./prof/)
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { agentEnv, policyDocs, chatSse as sse } from './support/loopback.mjs';

const profile = process.argv.includes('--cpu-prof');
const runs = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? 5);
const MS = { plan: 400, extract: 400, longExtract: 1200, slowPage: 1200, write: 400 };
const CRITICAL = MS.plan + MS.slowPage + MS.extract + MS.write;
const bin = fileURLToPath(new URL('../bin/agent.js', import.meta.url));

const home = mkdtempSync(join(tmpdir(), 'agent-bench-chain-'));
const docs = policyDocs(home);
writeFileSync(join(docs, 'long.md'), `# Long manual\n\n${'The long limit is $9. '.repeat(400)}\n`);

let t0 = 0;
let timeline = [];
const now = () => performance.now() - t0;
const mark = (what) => timeline.push({ at: now(), what });

function modelReply(body) {
  const system = body.messages.find((m) => m.role === 'system')?.content ?? '';
  const prompt = String(body.messages.at(-1).content);
  if (system.includes('You plan research')) {
    if (!t0) t0 = performance.now();
    return {
      label: 'plan',
      ms: MS.plan,
      text: '{"documents": ["doc-1", "doc-2", "long"], "searches": ["alpha", "beta", "gamma"]}',
    };
  }
  if (system.includes('You extract facts')) {
    const label = prompt.match(/\[(SRC [^\]]+)\]/)?.[1] ?? (prompt.includes('Long manual') ? 'long' : 'doc');
    return {
      label: `extract ${label}`,
      ms: label === 'long' ? MS.longExtract : MS.extract,
      text: '- The limit is $5.',
    };
  }
  return { label: 'write', ms: MS.write, text: 'The limit is $5 [1].' };
}

const server = createServer((req, res) => {
  let raw = '';
  req.on('data', (d) => {
    raw += d;
  });
  req.on('end', () => {
    const url = new URL(req.url, 'http://x');
    if (url.pathname.endsWith('/chat/completions')) {
      const reply = modelReply(JSON.parse(raw));
      mark(`${reply.label} start`);
      setTimeout(() => {
        mark(`${reply.label} end`);
        res.writeHead(200, { 'content-type': 'text/event-stream' }).end(sse(reply.text));
      }, reply.ms);
      return;
    }
    if (url.pathname === '/search') {
      const q = url.searchParams.get('q');
      mark(`search ${q}`);
      const results = [1, 2].map((i) => ({
        title: `${q} ${i}`,
        url: `${base}/page/${q}-${i}`,
        description: 'snippet',
      }));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ web: { results } }));
      return;
    }
    const name = url.pathname.split('/').pop();
    const slow = name === 'beta-1';
    mark(`page ${name} requested`);
    setTimeout(
      () => {
        mark(`page ${name} served`);
        res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(
            `<html><head><title>[SRC ${name}] page</title></head><body><main><h1>[SRC ${name}] page</h1><p>${'A fact about limits. '.repeat(100)}</p></main></body></html>`,
          );
      },
      slow ? MS.slowPage : 0,
    );
  });
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${server.address().port}`;

const env = agentEnv(base, home, {
  BRAVE_SEARCH_KEY: 'bench',
  BRAVE_SEARCH_URL: `${base}/search`,
  AGENT_ALLOW_HOSTS: new URL(base).host,
  NO_COLOR: '1',
});
const args = [
  bin,
  'research',
  '--provider',
  'openai-compatible',
  '--small-model',
  's',
  '--large-model',
  'l',
  '--content',
  docs,
  'What is the limit?',
];

function once() {
  t0 = 0;
  timeline = [];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, profile ? ['--cpu-prof', '--cpu-prof-dir=prof', ...args] : args, {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('exit', (code) => {
      if (code !== 0) reject(new Error(`agent research exited ${code}: ${stderr}`));
      const ends = timeline.filter((e) => e.what === 'write end');
      resolve({ span: ends.at(-1)?.at ?? Number.NaN, timeline });
    });
  });
}

await once(); // indexes the folder once, so timed runs see the same state
const all = [];
for (let i = 0; i < runs; i++) all.push(await once());
all.sort((a, b) => a.span - b.span);
const median = all[Math.floor(all.length / 2)];
console.log(
  `model-call span (plan request → write reply), median of ${runs} runs: ${median.span.toFixed(0)} ms · critical path ${CRITICAL} ms · overhead ${(median.span - CRITICAL).toFixed(0)} ms`,
);
console.log('timeline of the median run (ms after the plan request; ideal in brackets):');
const ideal = (what) => {
  if (what === 'plan start') return 0;
  if (what === 'plan end' || /^search |requested$|^extract (doc|long) start/.test(what)) return MS.plan;
  if (/served$/.test(what)) return what.includes('beta-1') ? MS.plan + MS.slowPage : MS.plan;
  if (/^extract SRC beta-1 start/.test(what)) return MS.plan + MS.slowPage;
  if (/^extract SRC .* start/.test(what)) return MS.plan;
  if (what === 'write start') return CRITICAL - MS.write;
  if (what === 'write end') return CRITICAL;
  return undefined;
};
for (const e of median.timeline) {
  const i = ideal(e.what);
  console.log(`  ${e.at.toFixed(0).padStart(6)}  ${e.what}${i === undefined ? '' : ` [${i}]`}`);
}
server.close();
process.exit(0);
