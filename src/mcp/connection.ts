import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  type CallToolResult,
  ErrorCode,
  McpError,
  type Tool as McpTool,
  ToolSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { errorMessage } from '../errors.js';
import { ToolError } from '../tools/tool.js';
import { withOwnSignal } from './abort.js';
import type { McpServerConfig, McpTimeouts } from './config.js';

export type { McpTool };

const VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

const seconds = (ms: number) => `${Number((ms / 1000).toFixed(1))} s`;

/**
 * The last lines a stdio server wrote to stderr: why it failed to start, or, once it is running, why it
 * stopped. A start-up banner ("… running on stdio") says nothing about a later stop, so only lines
 * written after start-up count then.
 */
class StderrTail {
  private text = '';
  append(chunk: Buffer | string) {
    this.text = (this.text + chunk.toString()).slice(-4000);
  }
  /** The server is ready: what it wrote so far was start-up talk. */
  started() {
    this.text = '';
  }
  lastLine(): string | undefined {
    const lines = this.text.split('\n').map((l) => l.trim());
    return lines.filter(Boolean).at(-1)?.slice(0, 300);
  }
}

// The SDK's listTools refuses a whole page for one malformed tool; here each tool is checked alone.
const ToolPage = z.looseObject({ tools: z.array(z.unknown()), nextCursor: z.string().optional() });

function leftOutMessage(server: string, raw: unknown, error: z.ZodError): string {
  const name = (raw as { name?: unknown } | null)?.name;
  const problems = error.issues.map((i) => `${i.path.join('.') || 'tool'}: ${i.message}`).join('; ');
  return `${typeof name === 'string' ? `The tool "${name}"` : 'A tool'} of the MCP server "${server}" is left out: its description is not valid MCP (${problems}).`;
}

/** A cause worth a person's time, from what the SDK, fetch or spawn threw. */
function describeFailure(error: unknown, config: McpServerConfig): string {
  if (error instanceof UnauthorizedError)
    return 'it asks for OAuth authorisation, which agent does not support; give a token in "headers"';
  const code = (error as NodeJS.ErrnoException).code;
  if (config.transport === 'stdio' && code === 'ENOENT') return `command not found: ${config.command}`;
  if (config.transport === 'stdio' && code === 'EACCES')
    return `cannot run ${config.command}: permission denied`;
  if (error instanceof McpError) return error.message.replace(/^MCP error -?\d+: /, '');
  // fetch says only "fetch failed"; its cause says "connect ECONNREFUSED 127.0.0.1:8080".
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const detail = cause?.message || cause?.code;
  return detail ? `${errorMessage(error)} (${detail})` : errorMessage(error);
}

/** A warning is one line, whatever a server or library put in its message. */
function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

/** One running MCP server: its tools are listed once, then called until the chat ends or it stops. */
export class McpConnection {
  /** Why the server can no longer be used; set when it exits or the connection drops. */
  private stopped: string | undefined;

  /** Whether the server is still there: its tools are offered only while it is. */
  get alive(): boolean {
    return this.stopped === undefined;
  }
  private closing = false;

  private constructor(
    readonly config: McpServerConfig,
    private readonly client: Client,
    private readonly transport: Transport,
    private readonly callMs: number,
  ) {}

  get name(): string {
    return this.config.name;
  }

  /**
   * Starts (or reaches) the server, initialises it and lists every tool, all within the start-up
   * timeout. Throws an Error whose message says why the server is not available; nothing is left running.
   */
  static async connect(
    config: McpServerConfig,
    o: {
      timeouts: McpTimeouts;
      signal?: AbortSignal;
      onWarning: (m: string) => void;
    },
  ): Promise<{ connection: McpConnection; tools: McpTool[] }> {
    const stderr = new StderrTail();
    const transport = makeTransport(config, stderr);
    const client = new Client({ name: 'agent', version: VERSION });
    const connection = new McpConnection(config, client, transport, o.timeouts.callMs);
    let ready = false;
    client.onclose = () => {
      if (connection.closing || connection.stopped) return;
      connection.stopped =
        transport instanceof StdioTransport
          ? describeExit(transport.exit, stderr.lastLine())
          : 'the connection was closed';
      if (ready)
        o.onWarning(
          `The MCP server "${config.name}" stopped: ${connection.stopped}. Its tools are no longer offered; calls already made get errors.`,
        );
    };

    const timeout = AbortSignal.timeout(o.timeouts.startupMs);
    const signal = o.signal ? AbortSignal.any([timeout, o.signal]) : timeout;
    const options = { signal, timeout: o.timeouts.startupMs };
    try {
      await client.connect(transport, options);
      const tools: McpTool[] = [];
      if (client.getServerCapabilities()?.tools) {
        const cursors = new Set<string>();
        let cursor: string | undefined;
        do {
          const page = await client.request(
            { method: 'tools/list', params: cursor ? { cursor } : undefined },
            ToolPage,
            options,
          );
          for (const raw of page.tools) {
            const tool = ToolSchema.safeParse(raw);
            if (tool.success) tools.push(tool.data);
            else o.onWarning(leftOutMessage(config.name, raw, tool.error));
          }
          cursor = page.nextCursor;
          // A server that hands out the same cursor again would be listed forever.
          if (cursor !== undefined && cursors.has(cursor)) break;
          if (cursor !== undefined) cursors.add(cursor);
        } while (cursor);
      }
      ready = true;
      stderr.started();
      return { connection, tools };
    } catch (error) {
      const exited = error instanceof McpError && error.code === ErrorCode.ConnectionClosed;
      const reason = timeout.aborted
        ? `no answer within ${seconds(o.timeouts.startupMs)}`
        : (exited && connection.stopped) || oneLine(describeFailure(error, config));
      // A server that failed to start gets no grace period (the SDK would give it seconds to exit),
      // and is gone before its warning is shown.
      if (transport instanceof StdioTransport && transport.spawnedPid) await terminate(transport.spawnedPid);
      await connection.close();
      throw new Error(reason, { cause: error });
    }
  }

  /** Calls one tool; every failure is a ToolError the model can read, except a cancel by the user. */
  async call(tool: string, args: unknown, signal: AbortSignal): Promise<CallToolResult> {
    const gone = () => new ToolError(`the MCP server "${this.name}" stopped: ${this.stopped}`);
    if (this.stopped) throw gone();
    try {
      return (await withOwnSignal(signal, (own) =>
        this.client.callTool({ name: tool, arguments: args as Record<string, unknown> }, undefined, {
          signal: own,
          timeout: this.callMs,
        }),
      )) as CallToolResult;
    } catch (error) {
      if (signal.aborted) throw error;
      if (this.stopped) throw gone();
      if (error instanceof McpError && error.code === ErrorCode.RequestTimeout)
        throw new ToolError(`the MCP server "${this.name}" did not answer within ${seconds(this.callMs)}`);
      if (error instanceof McpError)
        throw new ToolError(
          `the MCP server "${this.name}" refused the call: ${describeFailure(error, this.config)}`,
        );
      throw new ToolError(
        `the MCP server "${this.name}" could not be reached: ${describeFailure(error, this.config)}`,
      );
    }
  }

  /**
   * Shuts the server down: an HTTP session is ended; a stdio server's input is closed, then it is
   * sent SIGTERM and at last SIGKILL if it does not exit (the SDK's sequence, as the MCP spec asks).
   */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    const running = this.stopped === undefined; // a server that exited on its own has nothing to wait for
    this.stopped ??= 'the chat shut it down';
    if (this.transport instanceof StreamableHTTPClientTransport) {
      const ended = this.transport.terminateSession().catch(() => {});
      await Promise.race([ended, new Promise((r) => setTimeout(r, 1000).unref())]);
    }
    await this.client.close().catch(() => {});
    // The SDK's last resort, SIGKILL, is sent without waiting for the child to go.
    if (running && this.transport instanceof StdioTransport && this.transport.spawnedPid)
      await exited(this.transport.spawnedPid, 1000);
  }
}

/**
 * Remembers the child's pid, which the SDK's transport drops as soon as it begins closing, and how it
 * ended, which the SDK does not pass on ('exit' comes before the 'close' that closes the transport).
 */
class StdioTransport extends StdioClientTransport {
  spawnedPid: number | null = null;
  exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  override async start(): Promise<void> {
    await super.start();
    this.spawnedPid = this.pid;
    const child = (this as unknown as { _process?: ChildProcess })._process;
    child?.once('exit', (code, signal) => {
      this.exit = { code, signal };
    });
  }
}

/** "it was killed by SIGKILL", "it exited with code 3 (panic: …)": how a stdio server ended, and its last word. */
function describeExit(exit: StdioTransport['exit'], lastLine: string | undefined): string {
  const how = exit?.signal
    ? `it was killed by ${exit.signal}`
    : exit?.code != null
      ? `it exited with code ${exit.code}`
      : 'it exited';
  return lastLine ? `${how} (${lastLine})` : how;
}

/**
 * What a stdio server's process receives: the SDK's safe default (HOME, LOGNAME, PATH, SHELL, TERM,
 * USER; on Windows the few system variables programs need), never the rest of the user's environment,
 * where API keys live, plus the `env` its entry names.
 */
function serverEnvironment(own: Record<string, string>): Record<string, string> {
  return { ...getDefaultEnvironment(), ...own };
}

const isRunning = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Waits (briefly) until the child is gone and reaped. */
async function exited(pid: number, ms: number): Promise<boolean> {
  for (let waited = 0; waited < ms && isRunning(pid); waited += 20) await delay(20);
  return !isRunning(pid);
}

/** SIGTERM, up to 2 s to exit, then SIGKILL. */
async function terminate(pid: number): Promise<void> {
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return; // already gone
  }
  if (await exited(pid, 2000)) return;
  try {
    process.kill(pid, 'SIGKILL');
  } catch {}
  await exited(pid, 1000);
}

function makeTransport(config: McpServerConfig, stderr: StderrTail): Transport {
  if (config.transport === 'http') {
    return new StreamableHTTPClientTransport(config.url, { requestInit: { headers: config.headers } });
  }
  const transport = new StdioTransport({
    command: config.command,
    args: config.args,
    env: serverEnvironment(config.env),
    ...(config.cwd ? { cwd: config.cwd } : {}),
    // Kept off the terminal (servers log freely there) and used to say why a server failed.
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => stderr.append(chunk));
  return transport;
}
