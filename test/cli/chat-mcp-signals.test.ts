import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, ROOT, tempDb } from '../support/cli.js';
import { isRunning, mcpTempDir, testServer, writeMcpConfig } from '../support/mcp-config.js';
import { pidsWith, startStepModel } from '../support/mcp-model.js';

// SIGTERM and SIGHUP end `agent chat` as Ctrl-C does: the turn is cancelled, servers are shut down
// (bounded, then killed), and the exit code says which signal it was.

const EVERYTHING = join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');

let model: Awaited<ReturnType<typeof startStepModel>> | undefined;
afterEach(() => model?.close());

/** `agent chat` on a pipe that stays open, so the chat waits for more input as a script's would. */
function openChat(config: string, env: Record<string, string>) {
  const child = spawn(
    process.execPath,
    [BIN, 'chat', '--provider', 'openai-compatible', '-m', 'm', '--yes', '--mcp', config],
    { cwd: ROOT, env: cleanEnv({ AGENT_DB: tempDb(), AGENT_MCP_GRACE: '120', ...env }) },
  );
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal })),
  );
  return { child, exited, stderr: () => stderr };
}

async function waitUntil(check: () => boolean, what: string, ms = 120_000): Promise<void> {
  for (let waited = 0; !check(); waited += 50) {
    if (waited > ms) throw new Error(`timed out waiting until ${what}`);
    await delay(50);
  }
}

describe('signals during agent chat with MCP servers', () => {
  it('SIGTERM during a long call to server-everything: exit 143, and the server is gone', async () => {
    const dir = mcpTempDir();
    const tag = `--agent-test=${dir}`;
    model = await startStepModel({
      long: [
        { name: 'mcp__everything__trigger-long-running-operation', args: { duration: 120, steps: 120 } },
      ],
    });
    const chat = openChat(
      writeMcpConfig(dir, { everything: { command: process.execPath, args: [EVERYTHING, 'stdio', tag] } }),
      { OPENAI_BASE_URL: `${model.url}/v1` },
    );
    chat.child.stdin.write('long\n');
    await waitUntil(() => model!.requests.length > 0, 'the model is asked');
    await delay(1000); // the call is under way
    expect(pidsWith(tag)).toHaveLength(1);
    const sent = Date.now();
    chat.child.kill('SIGTERM');
    const { code } = await chat.exited;
    expect(code).toBe(143);
    // Not after the 120 s call: its shutdown is bounded (about 6 s at most, more on a loaded machine).
    expect(Date.now() - sent).toBeLessThan(20_000);
    expect(pidsWith(tag)).toEqual([]);
    expect(chat.stderr()).not.toMatch(/unexpected error|at .*\.js:\d+/);
  });

  it('SIGHUP while the chat waits for input: exit 129, and the server is gone', async () => {
    const dir = mcpTempDir();
    const pidFile = join(dir, 'pid');
    const readyFile = join(dir, 'ready');
    const chat = openChat(
      writeMcpConfig(dir, { dict: testServer('--pid-file', pidFile, '--ready-file', readyFile) }),
      { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' },
    );
    await waitUntil(() => {
      try {
        return readFileSync(readyFile, 'utf8') !== '';
      } catch {
        return false;
      }
    }, 'the server is up');
    const pid = Number(readFileSync(pidFile, 'utf8'));
    chat.child.kill('SIGHUP');
    const { code } = await chat.exited;
    expect(code).toBe(129);
    expect(isRunning(pid)).toBe(false);
    expect(chat.stderr()).toBe('');
  });
});
