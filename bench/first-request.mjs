#!/usr/bin/env node
// Start-up to first model request: how long after `agent research` (with and without web search set up; and `agent chat`, with OpenAI and Anthropic) is spawned its
// first request reaches a loopback model server, beside `node -e 0` (start and exit) and a bare Node
// script that only sends one request (the floor for any Node CLI). Medians of several interleaved runs.
// Beside wall time, the child's own CPU time up to that request (user + system, read by a preload when the
// request is created: less disturbed by other processes on a busy machine than wall time).
// With --before <folder> (see bench/before.mjs) that build's research and chat run interleaved too.
// With --cpu-prof, each case then runs 5 times more under V8's profiler, stopped at its first request, and
// the bench prints where that CPU time went by kind (bench/support/profile-summary.mjs; profiles in ./prof/).
// Usage: npm run build && node bench/first-request.mjs [runs] [--before <folder>] [--cpu-prof]
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeBin } from './before.mjs';
import { agentEnv } from './support/loopback.mjs';
import { summaryLines } from './support/profile-summary.mjs';

const runs = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? 15);
const bin = fileURLToPath(new URL('../bin/agent.js', import.meta.url));
const before = beforeBin();
const home = mkdtempSync(join(tmpdir(), 'agent-bench-first-'));

let onRequest = () => {};
const server = createServer((req, res) => {
  onRequest();
  // A model that never answers: the child is killed once its first request has arrived.
  req.resume();
  res.on('close', () => {});
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${server.address().port}`;

// Both providers' SDKs read their base URL from the environment: each reaches the same loopback server.
const env = agentEnv(base, home, { ANTHROPIC_BASE_URL: base, ANTHROPIC_API_KEY: 'bench' });
// Records the process's CPU time when its first HTTP request is created (Node's fetch and the undici
// package both publish undici:request:create), or at exit; the same preload for every case.
const cpuFile = join(home, 'cpu');
const preload = join(home, 'cpu.cjs');
writeFileSync(
  preload,
  `let done = false;
const record = () => { if (done) return; done = true; const u = process.cpuUsage();
  require('fs').writeFileSync(${JSON.stringify(cpuFile)}, String((u.user + u.system) / 1000)); };
require('diagnostics_channel').subscribe('undici:request:create', record);
process.on('exit', record);`,
);

/**
 * Wall milliseconds from spawn to the server's first request (or to exit, for `untilExit`), and the
 * child's CPU milliseconds up to it.
 */
async function once(args, options) {
  rmSync(cpuFile, { force: true });
  const wall = await spawned(args, options);
  return { wall, cpu: Number(readFileSync(cpuFile, 'utf8')) };
}

function spawned(args, { untilExit = false, input, extraEnv } = {}) {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(process.execPath, ['-r', preload, ...args], {
      env: { ...env, ...extraEnv },
      stdio: ['pipe', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const elapsed = () => Number(process.hrtime.bigint() - start) / 1e6;
    let done = false;
    if (untilExit) child.on('exit', () => resolve(elapsed()));
    else {
      onRequest = () => {
        onRequest = () => {};
        done = true;
        const ms = elapsed();
        // The preload has written the CPU time before the request left; SIGKILL once the file is closed.
        child.kill('SIGKILL');
        child.on('exit', () => resolve(ms));
      };
      child.on('exit', (code) => {
        if (!done) reject(new Error(`${args.join(' ')} exited ${code} before a request: ${stderr}`));
      });
    }
    child.stdin.end(input ?? '');
  });
}

const webSearch = { BRAVE_SEARCH_KEY: 'bench', BRAVE_SEARCH_URL: `${base}/search` };
const research = [
  'research',
  '--provider',
  'openai',
  '--small-model',
  's',
  '--large-model',
  'l',
  'How much can an agent refund?',
];
const chat = ['chat', '--provider', 'openai', '-m', 'c'];
const chatAnthropic = ['chat', '--provider', 'anthropic', '-m', 'c'];
const cases = [
  ['node -e 0 (start and exit)', ['-e', '0'], { untilExit: true }],
  [
    'node: one fetch (floor)',
    ['-e', `fetch(${JSON.stringify(`${base}/v1/x`)}, {method: 'POST'}).catch(() => {})`],
    {},
  ],
];
for (const b of before ? [bin, before] : [bin]) {
  const who = b === bin ? 'agent' : '  before:';
  cases.push([`${who} research`, [b, ...research], {}]);
  // With a search service set up, the modules web sources need load while the plan request is in flight
  // (a search backend that is never reached: the plan request is the first).
  cases.push([`${who} research, web set up`, [b, ...research], { extraEnv: webSearch }]);
  cases.push([`${who} chat (piped)`, [b, ...chat], { input: 'Hello\n' }]);
  cases.push([`${who} chat, Anthropic`, [b, ...chatAnthropic], { input: 'Hello\n' }]);
}
// Indexes the bundled documents once, so timed runs see the same state.
for (const [name, args, options] of cases) if (name.includes('research')) await once(args, options);
const times = cases.map(() => []);
for (let i = 0; i < runs; i++)
  for (const [c, [, args, options]] of cases.entries()) times[c].push(await once(args, options));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const wall = times.map((t) => median(t.map((x) => x.wall)));
const cpu = times.map((t) => median(t.map((x) => x.cpu)));
console.log(
  `median of ${runs} interleaved runs, from spawn to the first model request${before ? `; before: ${before}` : ''}`,
);
console.log(
  `${''.padEnd(28)} ${'wall'.padStart(10)} ${'×'.padStart(6)} ${'CPU'.padStart(10)} ${'×'.padStart(6)}  (× node -e 0)`,
);
cases.forEach(([name], c) => {
  const fig = (ms, base) => `${ms.toFixed(1).padStart(7)} ms ${(ms / base).toFixed(2).padStart(5)}x`;
  console.log(`${name.padEnd(28)} ${fig(wall[c], wall[0])} ${fig(cpu[c], cpu[0])}`);
});
if (process.argv.includes('--cpu-prof')) {
  // Stopped by the process itself as its first request is made, so that the profile is written.
  const stop = join(home, 'stop.cjs');
  writeFileSync(
    stop,
    "require('diagnostics_channel').subscribe('undici:request:create', () => process.exit(0));",
  );
  for (const [c, [name, args, options]] of cases.entries()) {
    if (c === 0) continue;
    const dir = join('prof', `first-request-${c}`);
    rmSync(dir, { recursive: true, force: true });
    for (let i = 0; i < 5; i++)
      await new Promise((resolve) => {
        const child = spawn(
          process.execPath,
          ['--cpu-prof', `--cpu-prof-dir=${dir}`, '--cpu-prof-interval=200', '-r', stop, ...args],
          { env: { ...env, ...options.extraEnv }, stdio: ['pipe', 'ignore', 'ignore'] },
        );
        child.on('exit', resolve);
        child.stdin.end(options.input ?? '');
      });
    console.log(`\n${name}: CPU by kind, mean of 5 profiles (${dir})`);
    for (const line of summaryLines(readdirSync(dir).map((f) => join(dir, f)))) console.log(line);
  }
}
server.close();
process.exit(0);
