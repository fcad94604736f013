import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, expect, it } from 'vitest';
import { tempDb } from '../support/cli.js';
import { isRunning, mcpTempDir, testServer, writeMcpConfig } from '../support/mcp-config.js';
import { startStepModel } from '../support/mcp-model.js';
import { hasScript, terminalChat } from '../support/pty.js';

// The terminal chat does not wait for a server that is slow to start.

let model: Awaited<ReturnType<typeof startStepModel>> | undefined;
afterEach(() => model?.close());

it.skipIf(!hasScript)(
  'on a terminal: the prompt comes at once, a message goes without a server still starting, /tools says so',
  async () => {
    model = await startStepModel({ hello: 'Hi there.' });
    const dir = mcpTempDir();
    const pidFile = join(dir, 'pid');
    const config = writeMcpConfig(dir, { slow: testServer('--pid-file', pidFile, '--slow-start', '60000') });
    const chat = terminalChat(['--provider', 'openai-compatible', '--model', 'fake', '--mcp', config], {
      OPENAI_BASE_URL: `${model.url}/v1`,
      AGENT_DB: tempDb(),
      AGENT_MCP_GRACE: '0.5',
    });
    await chat.waitFor(/Ctrl-D to leave[\s\S]*starting 1 MCP server…/);

    let mark = chat.mark();
    chat.type('hello\r');
    await chat.waitFor(/The MCP server "slow" is still starting: going on without its tools/, mark);
    await chat.waitFor(/Hi there\./, mark);

    mark = chat.mark();
    chat.type('/tools\r');
    await chat.waitFor(/MCP server "slow" is still starting: its tools join when it is ready\./, mark);
    expect(chat.out().slice(mark)).toMatch(/calculator\s+built-in/);

    // However long the server takes to write it on a loaded machine (the test's timeout is the net).
    while (!existsSync(pidFile)) await delay(25);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    const left = Date.now();
    chat.type('\x04');
    expect(await chat.exited).toBe(0);
    // The server still starting is stopped, not waited for.
    expect(Date.now() - left).toBeLessThan(10_000);
    expect(isRunning(pid)).toBe(false);
  },
);
