#!/usr/bin/env node
// Start-up to first model request: how long after `agent research` (and `agent chat`) is spawned its
// first request reaches a loopback model server, beside `node -e 0` (start and exit) and a bare Node
// script that only sends one request (the floor for any Node CLI). Medians of several runs.
// Usage: npm run build && node bench/first-request.mjs [runs]
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { agentEnv } from './support/loopback.mjs';

const runs = Number(process.argv[2] ?? 15);
const bin = fileURLToPath(new URL('../bin/agent.js', import.meta.url));
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

const env = agentEnv(base, home);

/** Milliseconds from spawn to the server's first request (or to exit, for `untilExit`). */
function once(args, { untilExit = false, input } = {}) {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(process.execPath, args, { env, stdio: ['pipe', 'ignore', 'pipe'] });
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
        child.kill('SIGKILL');
        resolve(ms);
      };
      child.on('exit', (code) => {
        if (!done) reject(new Error(`${args.join(' ')} exited ${code} before a request: ${stderr}`));
      });
    }
    child.stdin.end(input ?? '');
  });
}

async function median(args, options) {
  const times = [];
  for (let i = 0; i < runs; i++) times.push(await once(args, options));
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

const cases = [
  ['node -e 0 (start and exit)', ['-e', '0'], { untilExit: true }],
  [
    'node: one fetch (floor)',
    ['-e', `fetch(${JSON.stringify(`${base}/v1/x`)}, {method: 'POST'}).catch(() => {})`],
    {},
  ],
  [
    'agent research',
    [
      bin,
      'research',
      '--provider',
      'openai',
      '--small-model',
      's',
      '--large-model',
      'l',
      'How much can an agent refund?',
    ],
    {},
  ],
  ['agent chat (piped)', [bin, 'chat', '--provider', 'openai', '-m', 'c'], { input: 'Hello\n' }],
];
await median(cases[2][1], cases[2][2]); // indexes the bundled documents once, so timed runs see the same state
const reference = await median(cases[0][1], cases[0][2]);
console.log(`median of ${runs} runs, from spawn to the first model request`);
for (const [name, args, options] of cases) {
  const ms = name.startsWith('node -e 0') ? reference : await median(args, options);
  console.log(
    `${name.padEnd(28)} ${ms.toFixed(1).padStart(7)} ms  ${(ms / reference).toFixed(2)}x node -e 0`,
  );
}
server.close();
process.exit(0);
