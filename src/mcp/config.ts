import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { ConfigError, errorMessage } from '../errors.js';
import { configDirectory } from '../paths.js';

// The `mcpServers` file that Claude Desktop, Claude Code and Cursor read, so a user can copy theirs.

export type McpServerConfig =
  | {
      name: string;
      transport: 'stdio';
      command: string;
      args: string[];
      /** Added to the safe default environment (see serverEnvironment in connection.ts). */
      env: Record<string, string>;
      cwd?: string;
    }
  | { name: string; transport: 'http'; url: URL; headers: Record<string, string> };

/** Server names become part of tool names (`mcp__<server>__<tool>`), so they keep to the provider's alphabet. */
const SERVER_NAME = /^[A-Za-z0-9_-]{1,32}$/;

/** `<config dir>/mcp.json`. */
export function defaultMcpConfigPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(configDirectory(env), 'mcp.json');
}

/**
 * The servers to start. No file at the default path means no servers; a file given explicitly must
 * exist. Anything wrong in the file is one ConfigError naming the file and the problem. The file's schema
 * (zod) loads only when there is a file: most chats have none, and zod takes ~45 ms to load.
 */
export async function loadMcpConfig(
  options: { configPath?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<McpServerConfig[]> {
  const path = options.configPath ?? defaultMcpConfigPath(options.env);
  const invalid = (problem: string) =>
    new ConfigError(`The MCP configuration ${path} is not valid: ${problem}.`);

  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && options.configPath === undefined) return [];
    if (code === 'ENOENT') throw new ConfigError(`The MCP configuration ${path} does not exist.`);
    throw new ConfigError(`Cannot read the MCP configuration ${path}: ${errorMessage(error)}.`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw invalid(`not JSON (${errorMessage(error)})`);
  }
  const missing = expandVariables(json, options.env ?? process.env);
  if (missing) throw invalid(missing);
  const { describeIssues, fileSchema } = await import('./config-schema.js');
  const parsed = fileSchema.safeParse(json);
  if (!parsed.success) {
    const noServers = parsed.error.issues.some((i) => i.path.length === 1 && i.path[0] === 'mcpServers');
    if (noServers && (json === null || typeof json !== 'object' || !('mcpServers' in json)))
      throw invalid('expected {"mcpServers": {"name": {"command": "...", "args": [...]}}}');
    throw invalid(describeIssues(parsed.error.issues));
  }

  const servers: McpServerConfig[] = [];
  for (const [name, s] of Object.entries(parsed.data.mcpServers)) {
    if (!SERVER_NAME.test(name))
      throw invalid(
        `the server name "${name}" must be 1 to 32 letters, digits, "_" or "-" (it becomes part of tool names)`,
      );
    if (s.disabled) continue;
    if (s.url !== undefined) {
      servers.push({ name, transport: 'http', url: new URL(s.url), headers: s.headers ?? {} });
    } else {
      servers.push({
        name,
        transport: 'stdio',
        command: s.command!,
        args: s.args ?? [],
        env: s.env ?? {},
        // A relative working folder means the same thing wherever the chat is started.
        ...(s.cwd ? { cwd: resolve(dirname(path), s.cwd) } : {}),
      });
    }
  }
  return servers;
}

/** `${NAME}`, or `${NAME:-fallback}` for a value to use when NAME is unset. */
const VARIABLE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/**
 * Expands `${VAR}` in place in the `env`, `args`, `url` and `headers` of every server that is not
 * disabled, from the user's environment: the way to hand a server a key on purpose, since servers do not
 * inherit the environment. Returns the first problem (a variable that is not set), or undefined.
 */
function expandVariables(json: unknown, env: NodeJS.ProcessEnv): string | undefined {
  const servers = (json as { mcpServers?: unknown } | null)?.mcpServers;
  if (typeof servers !== 'object' || servers === null || Array.isArray(servers)) return undefined;
  let problem: string | undefined;
  const expand = (value: unknown, where: string): unknown => {
    if (typeof value !== 'string') return value;
    return value.replace(VARIABLE, (whole, name: string, fallback: string | undefined) => {
      const found = env[name] ?? fallback;
      if (found === undefined) {
        problem ??= `${where}: the environment variable ${name} (in "${whole}") is not set`;
        return whole;
      }
      return found;
    });
  };
  const expandEach = (value: unknown, where: string) => {
    if (Array.isArray(value)) return value.map((v, i) => expand(v, `${where}.${i}`));
    if (typeof value !== 'object' || value === null) return value;
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, expand(v, `${where}.${k}`)]));
  };
  for (const [name, server] of Object.entries(servers as Record<string, unknown>)) {
    if (typeof server !== 'object' || server === null) continue;
    const s = server as Record<string, unknown>;
    if (s.disabled === true) continue;
    const at = `mcpServers.${name}`;
    if ('url' in s) s.url = expand(s.url, `${at}.url`);
    for (const key of ['env', 'args', 'headers']) if (key in s) s[key] = expandEach(s[key], `${at}.${key}`);
  }
  return problem;
}

export interface McpTimeouts {
  /** Start, initialise and list tools. */
  startupMs: number;
  /** One tool call. */
  callMs: number;
  /** How long a chat message waits for servers still starting before it goes without their tools. */
  graceMs: number;
}

/**
 * `AGENT_MCP_STARTUP_TIMEOUT` (default 15), `AGENT_MCP_TOOL_TIMEOUT` (default 60) and `AGENT_MCP_GRACE`
 * (default 3), in seconds.
 */
export function mcpTimeouts(env: NodeJS.ProcessEnv = process.env): McpTimeouts {
  const seconds = (name: string, fallback: number) => {
    const raw = env[name];
    if (raw === undefined || raw.trim() === '') return fallback * 1000;
    const n = Number(raw);
    if (!Number.isFinite(n) || n <= 0)
      throw new ConfigError(`${name} must be a number of seconds greater than 0, not "${raw}".`);
    return Math.round(n * 1000);
  };
  return {
    startupMs: seconds('AGENT_MCP_STARTUP_TIMEOUT', 15),
    callMs: seconds('AGENT_MCP_TOOL_TIMEOUT', 60),
    graceMs: seconds('AGENT_MCP_GRACE', 3),
  };
}
