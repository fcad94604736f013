#!/usr/bin/env node
// MCP start-up and the chat: how long after a piped `agent chat` is spawned its first model request
// arrives, with no MCP server, with one server that starts quickly, and with one that takes 20 s to
// start (it is waited for only up to the grace, AGENT_MCP_GRACE, default 3 s; before servers started in
// the background, such a server held the first request for the whole start-up timeout, 15 s). Each chat
// is then ended with SIGTERM, which must shut its server down: the time to exit is printed too.
// Medians of several runs. Usage: npm run build && node bench/mcp-start.mjs [runs]
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const runs = Number(process.argv[2] ?? 5);
const bin = fileURLToPath(new URL('../bin/agent.js', import.meta.url));
const testServer = fileURLToPath(new URL('../test/support/mcp-server.mjs', import.meta.url));
const home = mkdtempSync(join(tmpdir(), 'agent-bench-mcp-'));

let onRequest = () => {};
const model = createServer((req) => {
  onRequest();
  req.resume(); // never answers: the chat is ended once its first request has arrived
});
await new Promise((resolve) => model.listen(0, '127.0.0.1', resolve));

const config = (servers) => {
  const path = join(home, `mcp-${Object.keys(servers).join('-') || 'none'}.json`);
  writeFileSync(path, JSON.stringify({ mcpServers: servers }));
  return path;
};
const slow = config({ slow: { command: process.execPath, args: [testServer, '--slow-start', '20000'] } });
const cases = [
  ['no MCP server', config({})],
  ['one server, quick to start', config({ quick: { command: process.execPath, args: [testServer] } })],
  ['one server taking 20 s to start', slow],
  // The reference: waiting for every server as the chat did before (up to the start-up timeout).
  ['the same, waited for as before', slow, { AGENT_MCP_GRACE: '15' }],
];

const env = {
  ...Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !/^(ANTHROPIC_|OPENAI_|AGENT_|BRAVE_|TAVILY_|SEARXNG_)/.test(k),
    ),
  ),
  OPENAI_BASE_URL: `http://127.0.0.1:${model.address().port}/v1`,
  OPENAI_API_KEY: 'bench',
  AGENT_DB: join(home, 'agent.db'),
  XDG_CONFIG_HOME: join(home, 'config'),
  XDG_DATA_HOME: join(home, 'data'),
};

/** [ms to the first model request, ms from SIGTERM to exit]. */
function once(mcp, extraEnv = {}) {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const ms = (from) => Number(process.hrtime.bigint() - from) / 1e6;
    const child = spawn(
      process.execPath,
      [bin, 'chat', '--provider', 'openai-compatible', '-m', 'bench', '--mcp', mcp],
      { env: { ...env, ...extraEnv }, stdio: ['pipe', 'ignore', 'ignore'] },
    );
    let first;
    let term;
    onRequest = () => {
      onRequest = () => {};
      first = ms(start);
      term = process.hrtime.bigint();
      child.kill('SIGTERM');
    };
    child.on('exit', (code) => {
      if (first === undefined) reject(new Error(`the chat exited (${code}) before its first request`));
      else resolve([first, ms(term)]);
    });
    child.stdin.end('hello\n');
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`agent chat on a pipe, first model request and exit on SIGTERM (median of ${runs})`);
for (const [name, mcp, extraEnv] of cases) {
  const firsts = [];
  const exits = [];
  for (let i = 0; i < runs; i++) {
    const [f, e] = await once(mcp, extraEnv);
    firsts.push(f);
    exits.push(e);
  }
  console.log(
    `  ${name.padEnd(34)} first request ${median(firsts).toFixed(0).padStart(6)} ms   exit after SIGTERM ${median(exits).toFixed(0).padStart(5)} ms`,
  );
}
model.close();
