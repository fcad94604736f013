import { AbortedError } from '../errors.js';
import type { AnyTool } from '../tools/tool.js';
import { loadMcpConfig, type McpTimeouts, mcpTimeouts } from './config.js';
import { McpServers, type McpServersEvents } from './servers.js';

export { defaultMcpConfigPath, loadMcpConfig, type McpServerConfig } from './config.js';
export type { McpServers } from './servers.js';
export type { NotOffered } from './tools.js';

export interface LoadMcpToolsOptions {
  /** A file given with `--mcp`; otherwise `<config dir>/mcp.json`, if it exists. */
  configPath?: string;
  /** Read for the config folder, the timeouts and `${VAR}` in the file (servers do not inherit it). */
  env?: NodeJS.ProcessEnv;
  /** One line per server that could not be used, or that stops later, or tool left out. */
  onWarning?: (message: string) => void;
  /** Overrides `AGENT_MCP_STARTUP_TIMEOUT` / `AGENT_MCP_TOOL_TIMEOUT`. */
  timeouts?: Partial<McpTimeouts>;
  /** Cancels start-up (Ctrl-C): servers already started are shut down. */
  signal?: AbortSignal;
}

/**
 * Starts every configured MCP server in the background and returns at once. A malformed configuration
 * (or a `${VAR}` that is not set) throws a ConfigError before anything starts; a server that fails to
 * start costs only its own tools (one warning).
 */
export async function startMcpServers(
  o: Omit<LoadMcpToolsOptions, 'signal' | 'onWarning'> & Partial<McpServersEvents> = {},
): Promise<McpServers> {
  const env = o.env ?? process.env;
  const configs = await loadMcpConfig({ configPath: o.configPath, env });
  const timeouts = { ...mcpTimeouts(env), ...o.timeouts };
  return new McpServers(configs, timeouts, {
    onWarning: o.onWarning ?? (() => {}),
    onLateReady: o.onLateReady,
  });
}

export interface McpTools {
  tools: AnyTool[];
  /** Tool name → the name of the MCP server it comes from, for `/tools`. */
  origins: Map<string, string>;
  /** Servers whose tools were loaded (a server may offer none). */
  servers: string[];
  /** Shuts every server down; safe to call more than once. */
  close(): Promise<void>;
}

/** Starts every configured server and waits until each is ready or has failed. */
export async function loadMcpTools(o: LoadMcpToolsOptions = {}): Promise<McpTools> {
  const servers = await startMcpServers(o);
  await servers.settle(Number.POSITIVE_INFINITY, o.signal);
  if (o.signal?.aborted) {
    await servers.close();
    throw new AbortedError();
  }
  return {
    tools: servers.takeTools(),
    origins: servers.origins,
    servers: servers.running,
    close: () => servers.close(),
  };
}
