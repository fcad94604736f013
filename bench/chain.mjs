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
import { MS, startWorld } from './support/world.mjs';

const profile = process.argv.includes('--cpu-prof');
const runs = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? 5);
const CRITICAL = MS.plan + MS.slowPage + MS.extract + MS.write;

let t0 = 0;
let timeline = [];
const now = () => performance.now() - t0;
const mark = (what) => timeline.push({ at: now(), what });

const world = await startWorld({
  mark,
  onPlan: () => {
    if (!t0) t0 = performance.now();
  },
});
const { env } = world;
// --refresh: every run reads and extracts its sources, as a first run does (bench/cache.mjs measures re-runs).
const args = world.researchArgs('What is the limit?', ['--refresh']);

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
world.close();
process.exit(0);
