import type { McpServers, NotOffered } from '../../mcp/index.js';
import type { ToolRegistry } from '../../tools/registry.js';
import { styleFor } from '../style.js';

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/**
 * The chat's side of servers started in the background: before each message, servers still starting
 * are waited for up to the grace, and the tools of every server ready by then join the registry.
 */
export class ChatMcp {
  constructor(
    private readonly servers: McpServers,
    private readonly registry: ToolRegistry,
    /** Called when tools join, to refresh what depends on the list (the system prompt). */
    private readonly onJoin: () => void,
  ) {}

  /** Servers still starting, for /tools. */
  get starting(): string[] {
    return this.servers.starting;
  }

  get notOffered(): readonly NotOffered[] {
    return this.servers.notOffered;
  }

  get origins(): Map<string, string> {
    return this.servers.origins;
  }

  /** A line for the terminal while servers start, or undefined when none is configured. */
  startingNote(): string | undefined {
    const n = this.servers.names.length;
    return n ? `starting ${plural(n, 'MCP server', 'MCP servers')}…` : undefined;
  }

  /** Adds the tools of servers that are ready now. */
  join(): void {
    const tools = this.servers.takeTools();
    if (tools.length === 0) return;
    this.registry.add(tools);
    this.onJoin();
  }

  /**
   * Before a message (and on a pipe, before a slash command): waits up to the grace for servers still
   * starting, adds the tools of those ready, and says which it went on without.
   */
  async beforeMessage(
    signal: AbortSignal,
    waiting?: { start(servers: string[]): void; stop(): void },
  ): Promise<void> {
    const waitable = this.servers.waitable;
    if (waitable.length) waiting?.start(waitable);
    const late = await this.servers.settle(this.servers.graceMs, signal);
    if (waitable.length) waiting?.stop();
    this.join();
    if (late.length === 0) return;
    const names = late.map((n) => `"${n}"`).join(', ');
    const which = late.length === 1 ? `The MCP server ${names} is` : `The MCP servers ${names} are`;
    const its = late.length === 1 ? 'its' : 'their';
    process.stderr.write(
      `${styleFor(process.stderr).dim(`${which} still starting: going on without ${its} tools, which join once ready.`)}\n`,
    );
  }
}
