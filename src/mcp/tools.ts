import type { CallToolResult, Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import type { SchemaTool } from '../tools/tool.js';
import { formatToolResult } from './content.js';
import { fullToolName, providerToolNames } from './names.js';
import { portableSchema } from './schema.js';
import { SchemaCompiler } from './validator.js';

/** What a tool needs of its server: a way to call it. */
export interface McpCaller {
  call(tool: string, args: unknown, signal: AbortSignal): Promise<CallToolResult>;
  /** False once the server has stopped. */
  readonly alive?: boolean;
}

export interface ServerTools {
  server: string;
  caller: McpCaller;
  tools: McpTool[];
}

export type McpAgentTool = SchemaTool<Record<string, unknown>>;

/** A server tool that is listed but not offered to the model, and why (for `/tools`). */
export interface NotOffered {
  name: string;
  server: string;
  reason: string;
}

/** agent makes plain calls; a tool that only works as an MCP task would fail every time. */
export const NEEDS_TASKS = 'needs MCP task support, which agent does not have';

/**
 * Every server tool as a tool the model can call, named `mcp__<server>__<tool>` (made provider-safe),
 * with the server's description and a portable copy of its schema. Arguments are checked against the
 * server's own schema before a call is sent. Tools need confirmation unless the server marks them
 * read-only: an annotation is a hint from a server that may not be trusted, so asking stays the default.
 * Tools that require task-augmented execution are not offered. `taken`: names already offered (tools
 * of servers that became ready earlier), never reused.
 */
export function buildMcpTools(
  servers: readonly ServerTools[],
  onWarning: (message: string) => void,
  taken: ReadonlySet<string> = new Set(),
): { tools: McpAgentTool[]; origins: Map<string, string>; notOffered: NotOffered[] } {
  const names = providerToolNames(
    servers.flatMap((s) => s.tools.map((t) => fullToolName(s.server, t.name))),
    taken,
  );
  const compiler = new SchemaCompiler();
  const tools: McpAgentTool[] = [];
  const origins = new Map<string, string>();
  const notOffered: NotOffered[] = [];

  for (const { server, caller, tools: listed } of servers) {
    const seen = new Set<string>();
    for (const t of listed) {
      const leftOut = (why: string) =>
        onWarning(`The tool "${t.name}" of the MCP server "${server}" is left out: ${why}.`);
      if (seen.has(t.name)) {
        leftOut('the server lists two tools of that name');
        continue;
      }
      seen.add(t.name);
      if (t.execution?.taskSupport === 'required') {
        notOffered.push({ name: fullToolName(server, t.name), server, reason: NEEDS_TASKS });
        continue;
      }
      const name = names.get(fullToolName(server, t.name));
      if (!name) {
        leftOut('no unique name could be made for it');
        continue;
      }
      let validate: McpAgentTool['validate'];
      try {
        validate = compiler.compile(t.inputSchema) as McpAgentTool['validate'];
      } catch (error) {
        leftOut(`its input schema is not usable JSON Schema (${(error as Error).message})`);
        continue;
      }
      tools.push({
        name,
        description:
          t.description?.trim() || t.title || `The "${t.name}" tool of the MCP server "${server}".`,
        parameters: portableSchema(t.inputSchema),
        validate,
        needsConfirmation: t.annotations?.readOnlyHint !== true,
        available: () => caller.alive !== false,
        run: async (input, { signal }) => formatToolResult(await caller.call(t.name, input, signal)),
      });
      origins.set(name, server);
    }
  }
  return { tools, origins, notOffered };
}
