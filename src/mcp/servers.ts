import type { AnyTool } from '../tools/tool.js';
import type { McpServerConfig, McpTimeouts } from './config.js';
import type { McpConnection } from './connection.js';
import type { NotOffered } from './tools.js';

interface Entry {
  name: string;
  state: 'starting' | 'ready' | 'failed';
  /** A message already went without this server once: later ones do not wait for it again. */
  missedGrace: boolean;
  /** Settles (never rejects) when the server is ready or has failed. */
  done: Promise<void>;
}

export interface McpServersEvents {
  /** One line per server that could not be used, stopped later, or tool left out. */
  onWarning(message: string): void;
  /** A server that a message already went without is now ready: its tools join the next message. */
  onLateReady?(server: string, tools: number): void;
}

/**
 * The configured MCP servers, started in the background (all at once) so the chat need not wait for the
 * slowest. Each server's tools are built when it is ready and handed out once by `takeTools`.
 */
export class McpServers {
  private readonly entries: Entry[];
  private readonly connections: McpConnection[] = [];
  private readonly stopping = new AbortController();
  private readonly ready: AnyTool[] = [];
  private readonly taken = new Set<string>();
  private closed = false;
  /** Tool name → the server it comes from. */
  readonly origins = new Map<string, string>();
  /** Tools servers list that are not offered, and why. */
  readonly notOffered: NotOffered[] = [];

  constructor(
    configs: readonly McpServerConfig[],
    private readonly timeouts: McpTimeouts,
    events: McpServersEvents,
  ) {
    const warn = (m: string) => {
      if (!this.closed) events.onWarning(m);
    };
    // The SDK is loaded only when a server is configured, so a chat without MCP starts fast.
    const modules = configs.length
      ? Promise.all([import('./connection.js'), import('./tools.js')])
      : undefined;
    this.entries = configs.map((config) => {
      const entry: Entry = {
        name: config.name,
        state: 'starting',
        missedGrace: false,
        done: Promise.resolve(),
      };
      entry.done = modules!
        .then(async ([{ McpConnection }, { buildMcpTools }]) => {
          const { connection, tools } = await McpConnection.connect(config, {
            timeouts,
            signal: this.stopping.signal,
            onWarning: warn,
          });
          this.connections.push(connection); // close() shuts it down, even if it is closing already
          if (this.closed) return;
          if (tools.length === 0) warn(`The MCP server "${config.name}" offers no tools.`);
          const built = buildMcpTools([{ server: config.name, caller: connection, tools }], warn, this.taken);
          for (const t of built.tools) this.taken.add(t.name);
          for (const [tool, server] of built.origins) this.origins.set(tool, server);
          this.notOffered.push(...built.notOffered);
          this.ready.push(...built.tools);
          entry.state = 'ready';
          if (entry.missedGrace) events.onLateReady?.(config.name, built.tools.length);
        })
        .catch((error: Error) => {
          entry.state = 'failed';
          warn(`The MCP server "${config.name}" is not available: ${error.message}.`);
        });
      return entry;
    });
  }

  /** How long a chat message waits for servers still starting (`AGENT_MCP_GRACE`). */
  get graceMs(): number {
    return this.timeouts.graceMs;
  }

  /** Every server configured, in the file's order. */
  get names(): string[] {
    return this.entries.map((e) => e.name);
  }

  /** Servers whose tools are loaded. */
  get running(): string[] {
    return this.entries.filter((e) => e.state === 'ready').map((e) => e.name);
  }

  /** Servers neither ready nor failed yet. */
  get starting(): string[] {
    return this.entries.filter((e) => e.state === 'starting').map((e) => e.name);
  }

  /** Servers a message would wait for now: still starting, and not yet gone without. */
  get waitable(): string[] {
    return this.entries.filter((e) => e.state === 'starting' && !e.missedGrace).map((e) => e.name);
  }

  /**
   * Waits for the servers still starting, for at most `graceMs` (Infinity: until each is ready or has
   * failed, which its start-up timeout bounds), or until `signal` aborts. A server a message already went
   * without is not waited for again. Returns the servers this wait gave up on.
   */
  async settle(graceMs: number, signal?: AbortSignal): Promise<string[]> {
    const waiting = this.entries.filter((e) => e.state === 'starting' && !e.missedGrace);
    if (waiting.length === 0 || signal?.aborted) return [];
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    await Promise.race([
      Promise.all(waiting.map((e) => e.done)),
      new Promise<void>((resolve) => {
        if (Number.isFinite(graceMs)) timer = setTimeout(resolve, graceMs);
      }),
      new Promise<void>((resolve) => {
        onAbort = resolve;
        signal?.addEventListener('abort', onAbort, { once: true });
      }),
    ]);
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
    if (signal?.aborted) return [];
    const late = waiting.filter((e) => e.state === 'starting');
    for (const e of late) e.missedGrace = true;
    return late.map((e) => e.name);
  }

  /** The tools of servers that became ready since the last call. */
  takeTools(): AnyTool[] {
    return this.ready.splice(0);
  }

  /** Stops servers still starting and shuts down the others; safe to call more than once. */
  async close(): Promise<void> {
    this.closed = true;
    this.stopping.abort();
    await Promise.all(this.entries.map((e) => e.done));
    await Promise.all(this.connections.map((c) => c.close()));
  }
}
