import type { TurnOptions } from '../../src/loop/run-turn.js';
import { type LoadMcpToolsOptions, loadMcpTools, type McpTools } from '../../src/mcp/index.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import type { Message, ToolResultMessage } from '../../src/types.js';
import { mcpTempDir, writeMcpConfig } from './mcp-config.js';
import { scriptedProvider } from './scripted-provider.js';
import { testTools } from './test-tools.js';

const opened: McpTools[] = [];

/** Shuts down every server `loadServers` started; call it in afterEach. */
export async function closeAllServers(): Promise<void> {
  await Promise.all(opened.splice(0).map((m) => m.close()));
}

/** Loads the servers of a fresh config; warnings are collected rather than printed. */
export async function loadServers(
  servers: Record<string, unknown>,
  extra: Partial<LoadMcpToolsOptions> = {},
) {
  const dir = mcpTempDir();
  const warnings: string[] = [];
  const mcp = await loadMcpTools({
    configPath: writeMcpConfig(dir, servers),
    env: process.env,
    onWarning: (w) => warnings.push(w),
    ...extra,
  });
  opened.push(mcp);
  return { mcp, warnings, dir };
}

/** A scripted model with the built-in test tools and the servers' tools. */
export function mcpTurnOptions(
  mcp: McpTools,
  script: Parameters<typeof scriptedProvider>[0],
  extra: Partial<TurnOptions> = {},
) {
  const provider = scriptedProvider(script);
  const options: TurnOptions = {
    provider,
    model: 'scripted',
    registry: new ToolRegistry([...testTools().tools, ...mcp.tools]),
    maxTurns: 8,
    ...extra,
  };
  return { provider, options };
}

export const toolResults = (messages: Message[]) =>
  messages.filter((m): m is ToolResultMessage => m.role === 'toolResult');
