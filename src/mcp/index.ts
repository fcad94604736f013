import { AbortedError } from '../errors.js';
import type { AnyTool } from '../tools/tool.js';
import { loadMcpConfig, type McpTimeouts, mcpTimeouts } from './config.js';

export { defaultMcpConfigPath, loadMcpConfig, type McpServerConfig } from './config.js';

export interface LoadMcpToolsOptions {
  /** A file given with `--mcp`; otherwise `<config dir>/mcp.json`, if it exists. */
  configPath?: string;
  /** Read for the config folder and the timeouts, and inherited by stdio servers. */
  env?: NodeJS.ProcessEnv;
  /** One line per server that could not be used, or that stops later, or tool left out. */
  onWarning?: (message: string) => void;
  /** Overrides `AGENT_MCP_STARTUP_TIMEOUT` / `AGENT_MCP_TOOL_TIMEOUT`. */
  timeouts?: Partial<McpTimeouts>;
  /** Cancels start-up (Ctrl-C): servers already started are shut down. */
  signal?: AbortSignal;
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

const none = (): McpTools => ({ tools: [], origins: new Map(), servers: [], close: async () => {} });

/**
 * Starts every configured MCP server in parallel and offers their tools. A malformed configuration
 * throws a ConfigError before anything starts; a server that fails to start costs only its own tools
 * (one warning). The SDK is loaded only when a server is configured, so a chat without MCP starts fast.
 */
export async function loadMcpTools(o: LoadMcpToolsOptions = {}): Promise<McpTools> {
  const env = o.env ?? process.env;
  const warn = o.onWarning ?? (() => {});
  const configs = loadMcpConfig({ configPath: o.configPath, env });
  const timeouts = { ...mcpTimeouts(env), ...o.timeouts };
  if (configs.length === 0) return none();

  const [{ McpConnection }, { buildMcpTools }] = await Promise.all([
    import('./connection.js'),
    import('./tools.js'),
  ]);
  const settled = await Promise.allSettled(
    configs.map((config) =>
      McpConnection.connect(config, { env, timeouts, signal: o.signal, onWarning: warn }),
    ),
  );
  const connected = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const close = async () => {
    await Promise.all(connected.map((c) => c.connection.close()));
  };
  if (o.signal?.aborted) {
    await close();
    throw new AbortedError();
  }

  settled.forEach((s, i) => {
    if (s.status === 'rejected')
      warn(`The MCP server "${configs[i]!.name}" is not available: ${(s.reason as Error).message}.`);
    else if (s.value.tools.length === 0) warn(`The MCP server "${configs[i]!.name}" offers no tools.`);
  });
  const { tools, origins } = buildMcpTools(
    connected.map((c) => ({ server: c.connection.name, caller: c.connection, tools: c.tools })),
    warn,
  );
  return { tools, origins, servers: connected.map((c) => c.connection.name), close };
}
