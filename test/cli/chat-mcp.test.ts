import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, startCli, tempDb } from '../support/cli.js';
import { type RecordedRequest, sse, startFakeServer } from '../support/fake-server.js';
import { loggedCalls, mcpTempDir, testServer, writeMcpConfig } from '../support/mcp-config.js';
import { offeredTools, startStepModel } from '../support/mcp-model.js';
import { chatSse } from '../support/sse-builders.js';

// `agent chat --mcp` as a user runs it: a real stdio MCP server, a model behind a loopback server.

describe('agent chat with tools from an MCP server', () => {
  let model: Awaited<ReturnType<typeof startFakeServer>>;
  let dir: string;
  let log: string;
  beforeEach(async () => {
    dir = mcpTempDir();
    log = join(dir, 'calls.log');
    // The model calls both server tools once, then answers from the results it got back.
    model = await startFakeServer([], (req: RecordedRequest) => {
      const messages = (req.body as any).messages as any[];
      if (messages.at(-1).role === 'tool')
        return sse(
          chatSse({
            text: `Done: ${messages
              .filter((m) => m.role === 'tool')
              .map((m) => m.content)
              .join(' | ')}`,
          }),
        );
      return sse(
        chatSse({
          calls: [
            { id: 'c1', name: 'mcp__dict__lookup', args: { word: 'apple' } },
            { id: 'c2', name: 'mcp__dict__save_entry', args: { word: 'pear', meaning: 'a fruit' } },
          ],
        }),
      );
    });
  });
  afterEach(() => model.close());

  const chat = (extra: string[], input: string, servers: Record<string, unknown>) =>
    runCli(
      ['chat', '--provider', 'openai-compatible', '-m', 'm', '--mcp', writeMcpConfig(dir, servers), ...extra],
      {
        // A busy machine can take seconds to start a server: these tests are not about the grace.
        env: { OPENAI_BASE_URL: `${model.url}/v1`, AGENT_DB: tempDb(), AGENT_MCP_GRACE: '120' },
        input,
      },
    );

  it('offers the tools, runs the read-only one, and needs --yes for the other on a pipe', async () => {
    const r = await chat([], 'Look up apple and save pear\n/tools\n', { dict: testServer('--log', log) });
    expect(r.code).toBe(0);
    const offered = ((model.requests[0]!.body as any).tools as any[]).map((t) => t.function.name);
    expect(offered).toEqual(
      expect.arrayContaining(['calculator', 'mcp__dict__lookup', 'mcp__dict__save_entry']),
    );
    expect(r.stdout).toMatch(/Done: apple: a word in the test dictionary\. \| .*--yes/);
    expect(loggedCalls(log).map((c) => c.tool)).toEqual(['lookup']);
    expect(r.stdout).toMatch(/^mcp__dict__lookup\s+MCP server "dict"$/m);
    expect(r.stdout).toMatch(/^mcp__dict__save_entry\s+MCP server "dict", asks first$/m);
    expect(r.stdout).toMatch(/^calculator\s+built-in$/m);
  });

  it('runs both with --yes', async () => {
    const r = await chat(['--yes'], 'Look up apple and save pear\n', { dict: testServer('--log', log) });
    expect(r.code).toBe(0);
    expect(
      loggedCalls(log)
        .map((c) => c.tool)
        .sort(),
    ).toEqual(['lookup', 'save_entry']);
  });

  it('a server that fails to start costs only its own tools: one warning, the chat goes on', async () => {
    const r = await chat(['--yes'], 'Look up apple and save pear\n', {
      dict: testServer('--log', log),
      broken: testServer('--fail-start'),
    });
    expect(r.code).toBe(0);
    expect(r.stderr.match(/MCP server "broken" is not available/g)).toHaveLength(1);
    expect(r.stdout).toMatch(/Done: apple/);
  });

  it('a malformed mcp.json is one line naming the file, exit 2', async () => {
    const r = await chat([], 'hi\n', { dict: { args: ['x'] } });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/mcp\.json/);
    expect(model.requests).toHaveLength(0);
  });
});

describe('agent chat with an MCP server slow to start', () => {
  it('a message waits only up to AGENT_MCP_GRACE, goes without the server, and its tools join the next one', async () => {
    const dir = mcpTempDir();
    const readyFile = join(dir, 'ready');
    // The chat says on stderr when the server's tools have been listed: the first answer waits for that
    // line (an event), not for a guess at how long listing takes on a loaded machine.
    let listed!: () => void;
    const toolsListed = new Promise<void>((resolve) => {
      listed = resolve;
    });
    const model = await startStepModel({
      first: async () => {
        await toolsListed;
        return 'first answer';
      },
      second: 'second answer',
    });
    try {
      const run = startCli(
        [
          'chat',
          '--provider',
          'openai-compatible',
          '-m',
          'm',
          '--mcp',
          writeMcpConfig(dir, { slow: testServer('--slow-start', '2000', '--ready-file', readyFile) }),
        ],
        {
          env: { OPENAI_BASE_URL: `${model.url}/v1`, AGENT_DB: tempDb(), AGENT_MCP_GRACE: '0.3' },
          input: 'first\nsecond\n',
        },
      );
      let stderr = '';
      run.child.stderr!.on('data', (d) => {
        stderr += d;
        if (/The MCP server "slow" is ready/.test(stderr)) listed();
      });
      const r = await run.done;
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/first answer[\s\S]*second answer/);
      expect(r.stderr).toMatch(
        /The MCP server "slow" is still starting: going on without its tools, which join once ready\./,
      );
      expect(r.stderr).toMatch(
        /The MCP server "slow" is ready: its 2 tool\(s\) join with the next message\./,
      );
      const [first, second] = model.requests;
      expect(offeredTools(first!)).not.toContain('mcp__slow__lookup');
      expect(offeredTools(second!)).toEqual(
        expect.arrayContaining(['mcp__slow__lookup', 'mcp__slow__save_entry']),
      );
      // The system prompt names the tools that joined.
      expect((second!.body as { messages: { content: string }[] }).messages[0]!.content).toMatch(
        /mcp__slow__lookup/,
      );
    } finally {
      await model.close();
    }
  });
});
