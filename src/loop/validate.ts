import type { z } from 'zod';
import { errorMessage } from '../errors.js';
import { parseToolArguments } from '../providers/json.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { AnyTool } from '../tools/tool.js';
import type { ToolCall } from '../types.js';

export type Validated = { ok: true; tool: AnyTool; input: unknown } | { ok: false; error: string };

function describeIssues(issues: z.core.$ZodIssue[]): string {
  return issues
    .map((i) => {
      const where = i.path.length ? `"${i.path.join('.')}"` : 'arguments';
      return `${where}: ${i.message}`;
    })
    .join('; ');
}

/**
 * Checks a call against its tool's schema (zod, loaded on the first call, or the tool's own check); the
 * error says exactly what to fix.
 */
export async function validateCall(call: ToolCall, registry: ToolRegistry): Promise<Validated> {
  const tool = registry.get(call.name);
  if (!tool) {
    return {
      ok: false,
      error: `Unknown tool "${call.name}". Available tools: ${registry.names.join(', ') || 'none'}.`,
    };
  }
  const args = parseToolArguments(call.argumentsText);
  if (args.error !== undefined)
    return { ok: false, error: `Invalid arguments for ${tool.name}: ${args.error}.` };
  if (tool.validate) {
    const checked = tool.validate(args.value);
    if (!checked.ok) return { ok: false, error: `Invalid arguments for ${tool.name}: ${checked.error}.` };
    return { ok: true, tool, input: checked.value };
  }
  let schema: Awaited<ReturnType<typeof tool.input>>;
  try {
    schema = await tool.input();
  } catch (error) {
    // The schemas are loaded on first use: a broken install is still one error result for this call.
    return { ok: false, error: `Could not check the arguments of ${tool.name}: ${errorMessage(error)}.` };
  }
  const parsed = schema.safeParse(args.value);
  if (!parsed.success)
    return {
      ok: false,
      error: `Invalid arguments for ${tool.name}: ${describeIssues(parsed.error.issues)}.`,
    };
  return { ok: true, tool, input: parsed.data };
}

/** Same tool, same arguments: key order and whitespace do not matter. */
export function callSignature(call: ToolCall): string {
  const args = parseToolArguments(call.argumentsText);
  return `${call.name}\u0000${args.value ? canonicalJson(args.value) : call.argumentsText.trim()}`;
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) =>
      a < b ? -1 : a > b ? 1 : 0,
    );
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
