#!/usr/bin/env node
// Nothing paid for twice: the same research question run twice by the built CLI against the loopback
// model, search service and pages of bench/chain.mjs (fixed latencies: plan 400 ms, extractions 400 ms,
// the long document's 1,200 ms, one page served after 1,200 ms, write 400 ms). The first run reads and
// extracts 3 documents and 6 pages; the second finds every page and extraction in the cache, so only
// plan and write are paid again. Prints model calls by step, pages fetched and wall time (spawn to exit)
// of the second run beside the first, the median of several pairs (the caches are emptied before each).
// Usage: npm run build && node bench/cache.mjs [pairs]
import { spawn } from 'node:child_process';
import { bin, startWorld } from './support/world.mjs';

const pairs = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? 3);
const world = await startWorld();
const QUESTION = 'What is the limit?';

function agent(args) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { env: world.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('exit', (code) => {
      if (code !== 0) reject(new Error(`agent ${args[1]} exited ${code}: ${stderr}`));
      else resolve({ stdout, ms: performance.now() - started });
    });
  });
}

/** One research run: what it cost the world (model calls by step, pages served) and its wall time. */
async function run() {
  const before = { ...world.counts };
  const { stdout, ms } = await agent(world.researchArgs(QUESTION, ['--json']));
  const result = JSON.parse(stdout);
  const delta = Object.fromEntries(Object.keys(before).map((k) => [k, world.counts[k] - before[k]]));
  return {
    ms,
    plan: delta.plan,
    extract: delta.extract,
    write: delta.write,
    pages: delta.pages,
    ledgerCalls: result.usage.calls,
    cached: result.sources.filter((s) => s.cached).length,
    sources: result.sources.length,
  };
}

// The content folder is indexed once first (extractive mode: no model, no web), so neither run pays for it.
await agent([bin, 'research', '--extractive', '--content', world.docs, QUESTION]);
const firsts = [];
const seconds = [];
for (let i = 0; i < pairs; i++) {
  await agent([bin, 'cache', '--clear']);
  firsts.push(await run());
  seconds.push(await run());
}
const median = (runs) => [...runs].sort((a, b) => a.ms - b.ms)[Math.floor(runs.length / 2)];
const row = (name, r) =>
  `${name.padEnd(7)} ${String(r.plan + r.extract + r.write).padStart(11)} ${`${r.plan}/${r.extract}/${r.write}`.padStart(22)} ${String(r.ledgerCalls).padStart(12)} ${String(r.pages).padStart(13)} ${`${r.cached}/${r.sources}`.padStart(14)} ${`${r.ms.toFixed(0)} ms`.padStart(10)}`;
const [a, b] = [median(firsts), median(seconds)];
console.log(`The same question twice, median of ${pairs} pair(s) (the caches emptied before each pair):`);
console.log(
  `${'run'.padEnd(7)} ${'model calls'.padStart(11)} ${'plan/extract/write'.padStart(22)} ${'ledger calls'.padStart(12)} ${'pages fetched'.padStart(13)} ${'cached sources'.padStart(14)} ${'wall time'.padStart(10)}`,
);
console.log(row('first', a));
console.log(row('second', b));
console.log(
  `second run: ${((b.ms / a.ms) * 100).toFixed(0)}% of the first's wall time; ${a.extract - b.extract} extraction call(s) and ${a.pages - b.pages} page fetch(es) saved`,
);
world.close();
process.exit(0);
