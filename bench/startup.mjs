#!/usr/bin/env node
// Start-up time of the CLI beside bare Node: the median of several runs of each command, wall time and
// the child's CPU time (user + system, less disturbed by other processes on a busy machine). With
// --before <folder> (see bench/before.mjs) the same commands of that build run interleaved with these.
// Usage: npm run build && node bench/startup.mjs [runs] [--before <folder>]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeBin } from './before.mjs';

const runs = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? 15);
const bin = fileURLToPath(new URL('../bin/agent.js', import.meta.url));
const before = beforeBin();
const home = mkdtempSync(join(tmpdir(), 'agent-bench-'));
// A preload that records the process's own CPU time at exit; the same for every case, node -e 0 too.
const cpuFile = join(home, 'cpu');
const preload = join(home, 'cpu.cjs');
writeFileSync(
  preload,
  `process.on('exit', () => { const u = process.cpuUsage(); require('fs').writeFileSync(${JSON.stringify(cpuFile)}, String((u.user + u.system) / 1000)); });`,
);
const env = { ...process.env, AGENT_DB: join(home, 'agent.db') };
// A code cache folder per build: a build that writes its caches removes every other build's from the
// folder (src/boot/code-cache.ts), so with one shared folder each run of one build would find none.
const codeCache = (args) => join(home, args[0] === before ? 'code-before' : 'code');

function once(args) {
  rmSync(cpuFile, { force: true });
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, ['-r', preload, ...args], {
    env: { ...env, AGENT_CODE_CACHE: codeCache(args) },
    stdio: 'ignore',
  });
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}`);
  return { wall: Number(process.hrtime.bigint() - start) / 1e6, cpu: Number(readFileSync(cpuFile, 'utf8')) };
}

const commands = [
  ['--version', ['--version']],
  ['--help', ['--help']],
  ['cost', ['cost']],
];
const cases = [['node -e 0', ['-e', '0']]];
for (const [name, args] of commands) {
  cases.push([`agent ${name}`, [bin, ...args]]);
  if (before) cases.push([`  before: ${name}`, [before, ...args]]);
}
// Creates the database and each build's code cache, so every timed run sees the same state.
once([bin, 'cost']);
if (before) once([before, 'cost']);

const times = cases.map(() => []);
for (let i = 0; i < runs; i++) for (const [c, [, args]] of cases.entries()) times[c].push(once(args));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const wall = times.map((t) => median(t.map((x) => x.wall)));
const cpu = times.map((t) => median(t.map((x) => x.cpu)));
console.log(`median of ${runs} interleaved runs${before ? `; before: ${before}` : ''}`);
console.log(
  `${''.padEnd(20)} ${'wall'.padStart(9)} ${'×'.padStart(6)} ${'CPU'.padStart(9)} ${'×'.padStart(6)}`,
);
cases.forEach(([name], c) => {
  const fig = (ms, base) => `${ms.toFixed(1).padStart(6)} ms ${(ms / base).toFixed(2).padStart(5)}x`;
  console.log(`${name.padEnd(20)} ${fig(wall[c], wall[0])} ${fig(cpu[c], cpu[0])}`);
});
