#!/usr/bin/env node
// Start-up time of the CLI beside bare Node: the median of several runs of each command.
// Usage: node bench/startup.mjs [runs]   (run `npm run build` first)
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const runs = Number(process.argv[2] ?? 15);
const bin = fileURLToPath(new URL('../bin/agent.js', import.meta.url));
const env = { ...process.env, AGENT_DB: join(mkdtempSync(join(tmpdir(), 'agent-bench-')), 'agent.db') };

function median(args) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    const r = spawnSync(process.execPath, args, { env, stdio: 'ignore' });
    if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}`);
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

const cases = [
  ['node -e 0', ['-e', '0']],
  ['agent --version', [bin, '--version']],
  ['agent --help', [bin, '--help']],
  ['agent cost', [bin, 'cost']],
];
median([bin, 'cost']); // creates the database, so every timed run sees the same state
const base = median(cases[0][1]);
console.log(`median of ${runs} runs`);
for (const [name, args] of cases) {
  const ms = name === 'node -e 0' ? base : median(args);
  console.log(`${name.padEnd(18)} ${ms.toFixed(1).padStart(7)} ms  ${(ms / base).toFixed(2)}x`);
}
