import { afterEach, describe, expect, it } from 'vitest';
import { runTurn } from '../../src/loop/run-turn.js';
import { loadMcpTools, type McpTools } from '../../src/mcp/index.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import type { ToolResultMessage } from '../../src/types.js';
import { mcpTempDir, writeMcpConfig } from '../support/mcp-config.js';
import { startMcpHttpServer } from '../support/mcp-http-server.js';
import { reply, scriptedProvider, text, toolCall } from '../support/scripted-provider.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanup.splice(0).map((f) => f()));
});

async function load(servers: Record<string, unknown>) {
  const warnings: string[] = [];
  const mcp: McpTools = await loadMcpTools({
    configPath: writeMcpConfig(mcpTempDir(), servers),
    env: {},
    onWarning: (w) => warnings.push(w),
    timeouts: { startupMs: 3000, callMs: 3000 },
  });
  cleanup.push(() => mcp.close());
  return { mcp, warnings };
}

const toolResults = (messages: { role: string }[]) =>
  messages.filter((m): m is ToolResultMessage => m.role === 'toolResult').map((m) => [m.content, m.isError]);

describe('tools from a Streamable HTTP MCP server', () => {
  it('connects with the configured headers, calls a tool, and ends the session on close', async () => {
    const server = await startMcpHttpServer();
    cleanup.push(server.close);
    const { mcp, warnings } = await load({
      remote: { url: server.url, headers: { Authorization: 'Bearer test-token' } },
    });
    expect(warnings).toEqual([]);
    expect(mcp.tools.map((t) => [t.name, t.needsConfirmation])).toEqual([['mcp__remote__echo', false]]);
    expect(server.requests.every((r) => r.headers.authorization === 'Bearer test-token')).toBe(true);

    const provider = scriptedProvider([
      reply([toolCall('c1', 'mcp__remote__echo', { text: 'hello' })]),
      reply([text('It said hello.')]),
    ]);
    const r = await runTurn([], 'echo hello', {
      provider,
      model: 'scripted',
      registry: new ToolRegistry(mcp.tools),
      maxTurns: 4,
    });
    expect(toolResults(r.messages)).toEqual([['echo: hello', false]]);
    expect(server.calls).toEqual([{ text: 'hello' }]);

    expect(server.sessions.size).toBe(1);
    await mcp.close();
    expect(server.requests.at(-1)!.method).toBe('DELETE');
    expect(server.sessions.size).toBe(0);
  });

  it('a server that cannot be reached costs only its own tools', async () => {
    const server = await startMcpHttpServer();
    const url = server.url;
    await server.close();
    const { mcp, warnings } = await load({ gone: { url } });
    expect(mcp.tools).toEqual([]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /^The MCP server "gone" is not available: fetch failed \(connect ECONNREFUSED 127\.0\.0\.1:\d+\)\.$/,
    );
  });

  it('a server that goes away mid-chat gives error results and the turn goes on', async () => {
    const server = await startMcpHttpServer();
    const { mcp } = await load({ remote: { url: server.url } });
    await server.close();
    const provider = scriptedProvider([
      reply([toolCall('c1', 'mcp__remote__echo', { text: 'hello' })]),
      reply([text('The server is gone.')]),
    ]);
    const r = await runTurn([], 'echo hello', {
      provider,
      model: 'scripted',
      registry: new ToolRegistry(mcp.tools),
      maxTurns: 4,
    });
    expect(r.text).toBe('The server is gone.');
    expect(toolResults(r.messages)).toEqual([
      [
        expect.stringMatching(
          /^mcp__remote__echo failed: the MCP server "remote" could not be reached: fetch failed \((connect ECONNREFUSED|other side closed)/,
        ),
        true,
      ],
    ]);
  });
});
