import { randomUUID } from 'node:crypto';
import type { Message, StopReason, ToolCall, ToolSpec, Usage } from '../types.js';
import { parseToolArguments } from './json.js';

// Ollama's native chat API (POST /api/chat) in our types, as small pure functions: its messages, tools,
// stop reasons and token counts. The wire shapes are those of Ollama's API documentation.

export interface OllamaToolCall {
  id?: string;
  function: { index?: number; name: string; arguments?: Record<string, unknown> | string };
}

export interface OllamaMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  thinking?: string;
  tool_calls?: OllamaToolCall[];
  tool_name?: string;
}

export interface OllamaTool {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/** One line of a streamed reply; the last has `done: true` and the counts. */
export interface OllamaChunk {
  model?: string;
  message?: Partial<OllamaMessage>;
  done?: boolean;
  done_reason?: string;
  prompt_eval_count?: number;
  /** Newer servers: the part of prompt_eval_count read from the prompt cache. */
  prompt_eval_cached_count?: number;
  eval_count?: number;
  error?: string;
}

/**
 * Our history → Ollama messages. A tool result goes back as `{role: "tool", tool_name, content}`; an
 * assistant turn with calls goes back with them as the model gave them (arguments as an object).
 */
export function convertOllamaMessages(system: string | undefined, messages: Message[]): OllamaMessage[] {
  const out: OllamaMessage[] = system ? [{ role: 'system', content: system }] : [];
  for (const m of messages) {
    if (m.role === 'user') out.push({ role: 'user', content: m.content });
    else if (m.role === 'toolResult')
      out.push({
        role: 'tool',
        tool_name: m.toolName,
        content: m.isError ? `Error: ${m.content}` : m.content,
      });
    else {
      const text = m.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('');
      const calls = m.content.filter((p): p is ToolCall => p.type === 'toolCall');
      out.push({
        role: 'assistant',
        content: text,
        ...(calls.length
          ? {
              tool_calls: calls.map((c) => ({
                function: { name: c.name, arguments: parseToolArguments(c.argumentsText).value ?? {} },
              })),
            }
          : {}),
      });
    }
  }
  return out;
}

export function convertOllamaTools(tools: ToolSpec[]): OllamaTool[] {
  return tools.map((t) => ({
    type: 'function',
    function: { name: t.name, description: t.description, parameters: t.parameters },
  }));
}

/** A call as ours: the arguments object as JSON text; an id made when the server gave none. */
export function fromOllamaToolCall(call: OllamaToolCall): ToolCall {
  const args = call.function.arguments;
  return {
    type: 'toolCall',
    id: call.id || `call_${randomUUID().replace(/-/g, '').slice(0, 24)}`,
    name: call.function.name,
    argumentsText: typeof args === 'string' ? args : JSON.stringify(args ?? {}),
  };
}

/** `stop` (with calls: toolUse), `length` (num_predict or the context reached); `load`/`unload` end too. */
export function mapOllamaDoneReason(reason: string | undefined, hasToolCalls: boolean): StopReason {
  if (reason === 'length') return 'length';
  return hasToolCalls ? 'toolUse' : 'stop';
}

/** prompt_eval_count includes what the prompt cache gave (prompt_eval_cached_count, where reported). */
export function fromOllamaUsage(done: OllamaChunk): Usage {
  const prompt = done.prompt_eval_count ?? 0;
  const cached = Math.min(prompt, done.prompt_eval_cached_count ?? 0);
  return {
    input: prompt - cached,
    cacheRead: cached,
    cacheWrite: 0,
    output: done.eval_count ?? 0,
    reasoning: 0,
  };
}

/** Ollama's model_info holds the trained context under the architecture's name: `llama.context_length`. */
export function trainedContext(show: unknown): number | undefined {
  const info = (show as { model_info?: Record<string, unknown> } | null)?.model_info;
  if (!info || typeof info !== 'object') return undefined;
  const arch = info['general.architecture'];
  const named = typeof arch === 'string' ? info[`${arch}.context_length`] : undefined;
  const value = named ?? Object.entries(info).find(([k]) => /^[^.]+\.context_length$/.test(k))?.[1];
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;
}
