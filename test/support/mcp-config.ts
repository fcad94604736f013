import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The SDK-built test server (see its header for the flags). */
export const MCP_SERVER = fileURLToPath(new URL('./mcp-server.mjs', import.meta.url));
/** A server that lists whatever tools a spec file gives. */
export const MCP_RAW_SERVER = fileURLToPath(new URL('./mcp-raw-server.mjs', import.meta.url));

/** A temporary folder for one test's config, call log and pid files. */
export const mcpTempDir = () => mkdtempSync(join(tmpdir(), 'agent-mcp-'));

/** Writes `{"mcpServers": servers}` and returns its path. */
export function writeMcpConfig(dir: string, servers: Record<string, unknown>): string {
  const path = join(dir, 'mcp.json');
  writeFileSync(path, JSON.stringify({ mcpServers: servers }, null, 2));
  return path;
}

/** A stdio entry that runs the test server with node. */
export const testServer = (...flags: string[]) => ({
  command: process.execPath,
  args: [MCP_SERVER, ...flags],
});

/** The calls a test server received, from its `--log` file. */
export function loggedCalls(path: string): { tool: string; args: Record<string, unknown> }[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

/**
 * True while a process with this pid runs. A zombie does not: a child killed just as its parent exited
 * waits there until the system reaps it.
 */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    // /proc/<pid>/stat: "pid (command) state …"
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ').at(-1)?.[0] !== 'Z';
  } catch {
    return true; // no /proc here: kill(0) is all there is
  }
}
