import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { AbortedError } from '../../src/errors.js';
import { runTurn } from '../../src/loop/run-turn.js';
import { ROOT } from '../support/cli.js';
import { isRunning, mcpTempDir, testServer, writeMcpConfig } from '../support/mcp-config.js';
import { closeAllServers, loadServers, mcpTurnOptions, toolResults } from '../support/mcp-harness.js';
import { reply, text, toolCall } from '../support/scripted-provider.js';

afterEach(closeAllServers);

describe('MCP servers that fail', () => {
  it('a server that crashes mid-call gives error results and the turn goes on', async () => {
    const { mcp, warnings } = await loadServers({ dict: testServer('--crash-on', 'save_entry') });
    const { options, provider } = mcpTurnOptions(
      mcp,
      [
        reply([toolCall('c1', 'mcp__dict__save_entry', { word: 'cat', meaning: 'a pet' })]),
        reply([toolCall('c2', 'mcp__dict__lookup', { word: 'cat' })]),
        reply([text('The dictionary is down.')]),
      ],
      { autoApprove: true },
    );
    const r = await runTurn([], 'save cat', options);
    expect(r).toMatchObject({ end: 'answered', text: 'The dictionary is down.', modelCalls: 3 });
    const stopped =
      'the MCP server "dict" stopped: it exited with code 3 (panic: the dictionary index is corrupt)';
    expect(toolResults(r.messages).map((m) => [m.content, m.isError])).toEqual([
      [`mcp__dict__save_entry failed: ${stopped}`, true],
      [`mcp__dict__lookup failed: ${stopped}`, true],
    ]);
    expect(warnings).toEqual([
      'The MCP server "dict" stopped: it exited with code 3 (panic: the dictionary index is corrupt). Its tools are no longer offered; calls already made get errors.',
    ]);
    // Offered before the crash, not after it.
    const offered = provider.requests.map((q) =>
      (q.tools ?? []).map((t) => t.name).filter((n) => n.startsWith('mcp__')),
    );
    expect(offered[0]).toEqual(['mcp__dict__lookup', 'mcp__dict__save_entry']);
    expect(offered.at(-1)).toEqual([]);
  });

  it("a killed server's stop reason says how it ended, not the banner it printed at start-up", async () => {
    const pidFile = join(mcpTempDir(), 'pid');
    const { warnings } = await loadServers({ dict: testServer('--banner', '--pid-file', pidFile) });
    process.kill(Number(readFileSync(pidFile, 'utf8')), 'SIGKILL');
    for (let i = 0; i < 200 && warnings.length === 0; i++) await delay(25);
    expect(warnings).toEqual([
      'The MCP server "dict" stopped: it was killed by SIGKILL. Its tools are no longer offered; calls already made get errors.',
    ]);
  });

  it('twelve parallel calls under one signal print no MaxListenersExceededWarning', async () => {
    const seen: string[] = [];
    const onWarning = (w: Error) => seen.push(w.name);
    process.on('warning', onWarning);
    try {
      const { mcp } = await loadServers({ dict: testServer() });
      const calls = Array.from({ length: 12 }, (_, i) =>
        toolCall(`c${i}`, 'mcp__dict__lookup', { word: `w${i}` }),
      );
      const { options } = mcpTurnOptions(mcp, [reply(calls), reply([text('ok')])], {
        signal: new AbortController().signal,
      });
      const r = await runTurn([], 'go', options);
      expect(toolResults(r.messages).map((m) => m.isError)).toEqual(Array(12).fill(false));
      await delay(50); // warnings are emitted on a later tick
      expect(seen).not.toContain('MaxListenersExceededWarning');
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('a server that fails to start costs only its own tools, with one warning each', async () => {
    const { mcp, warnings } = await loadServers({
      broken: testServer('--fail-start'),
      missing: { command: 'agent-test-no-such-command' },
      dict: testServer(),
    });
    // Each warning comes when its server fails, whichever first.
    expect(warnings.sort()).toEqual([
      'The MCP server "broken" is not available: it exited with code 1 (fatal: cannot open the dictionary database /nonexistent/dict.db).',
      'The MCP server "missing" is not available: command not found: agent-test-no-such-command.',
    ]);
    expect(mcp.servers).toEqual(['dict']);
    expect(mcp.tools.map((t) => t.name)).toEqual(['mcp__dict__lookup', 'mcp__dict__save_entry']);
  });

  it('a call that hangs hits the per-call timeout; the server still answers other calls', async () => {
    const { mcp } = await loadServers(
      { dict: testServer('--hang-on', 'lookup') },
      { timeouts: { callMs: 300 } },
    );
    const { options } = mcpTurnOptions(
      mcp,
      [
        reply([toolCall('c1', 'mcp__dict__lookup', { word: 'cat' })]),
        reply([toolCall('c2', 'mcp__dict__save_entry', { word: 'cat', meaning: 'a pet' })]),
        reply([text('Saved, but the lookup timed out.')]),
      ],
      { autoApprove: true },
    );
    const started = Date.now();
    const r = await runTurn([], 'go', options);
    // The hanging call is given up (the server never answers it), however loaded the machine.
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(toolResults(r.messages).map((m) => [m.content, m.isError])).toEqual([
      ['mcp__dict__lookup failed: the MCP server "dict" did not answer within 0.3 s', true],
      ['Saved "cat".', false],
    ]);
  });

  it('Ctrl-C during a call cancels the turn, not the server', async () => {
    const { mcp } = await loadServers({ dict: testServer('--hang-on', 'lookup') });
    const controller = new AbortController();
    const { options } = mcpTurnOptions(mcp, [reply([toolCall('c1', 'mcp__dict__lookup', { word: 'cat' })])], {
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 200);
    await expect(runTurn([], 'go', options)).rejects.toThrow(AbortedError);
    const save = mcp.tools.find((t) => t.name === 'mcp__dict__save_entry')!;
    expect(await save.run({ word: 'cat', meaning: 'a pet' }, { signal: new AbortController().signal })).toBe(
      'Saved "cat".',
    );
  });

  it('a server that never answers at start-up is given up after the start-up timeout and killed', async () => {
    const dir = mcpTempDir();
    const pidFile = join(dir, 'pid');
    // Ignores SIGTERM too, so only SIGKILL stops it.
    const silent = `require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); process.on('SIGTERM', () => {}); setInterval(() => {}, 1000);`;
    const started = Date.now();
    const { mcp, warnings } = await loadServers(
      { silent: { command: process.execPath, args: ['-e', silent] } },
      { timeouts: { startupMs: 1000 } },
    );
    // Given up, not waited for (the server never answers), however loaded the machine.
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(warnings).toEqual(['The MCP server "silent" is not available: no answer within 1 s.']);
    expect(mcp.tools).toEqual([]);
    expect(isRunning(Number(readFileSync(pidFile, 'utf8')))).toBe(false);
  });
});

describe('shutting MCP servers down', () => {
  it('close() leaves no child process', async () => {
    const dir = mcpTempDir();
    const pids = [join(dir, 'a.pid'), join(dir, 'b.pid')];
    const { mcp } = await loadServers({
      a: testServer('--pid-file', pids[0]!),
      b: testServer('--pid-file', pids[1]!),
    });
    const running = pids.map((p) => Number(readFileSync(p, 'utf8')));
    expect(running.map(isRunning)).toEqual([true, true]);
    await mcp.close();
    expect(running.map(isRunning)).toEqual([false, false]);
    await mcp.close(); // twice is fine
  });

  it('a program that loads MCP tools exits on its own after close(), leaving nothing running', async () => {
    const dir = mcpTempDir();
    const pidFile = join(dir, 'pid');
    const config = writeMcpConfig(dir, { dict: testServer('--pid-file', pidFile) });
    const script = join(dir, 'chat.mjs');
    writeFileSync(
      script,
      `import { loadMcpTools } from ${JSON.stringify(join(ROOT, 'dist/mcp/index.js'))};
const mcp = await loadMcpTools({ configPath: ${JSON.stringify(config)} });
console.log(mcp.tools.map((t) => t.name).join(','));
await mcp.close();`,
    );
    const child = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    const code = await new Promise<number | null>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error('the program did not exit'));
      }, 120_000);
      child.on('close', (c) => {
        clearTimeout(timer);
        resolve(c);
      });
    });
    expect(code).toBe(0);
    expect(out.trim()).toBe('mcp__dict__lookup,mcp__dict__save_entry');
    expect(isRunning(Number(readFileSync(pidFile, 'utf8')))).toBe(false);
  });
});
