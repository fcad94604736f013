import OpenAI from 'openai';
import type {
  FunctionTool,
  ResponseCreateParamsStreaming,
  ResponseInputItem,
  ResponseReasoningItem,
} from 'openai/resources/responses/responses.js';
import type {
  AssistantMessage,
  AssistantPart,
  Message,
  ModelRequest,
  Provider,
  StopReason,
  ToolSpec,
} from '../types.js';
import { streamEnded, translateError } from './errors.js';
import { cancelledMessage } from './partial.js';
import { requestSignal } from './request-signal.js';
import { fromOpenAIResponsesUsage } from './usage.js';

/** Reasoning models whose reasoning must travel back to them encrypted, since we keep the history. */
export const isReasoningModel = (model: string): boolean => /^(o\d|gpt-([5-9]|\d{2}))/.test(model);

// Keywords strict mode cannot express. They are dropped from the strict copy only: every call is still
// validated here against the full schema, so a model that ignores them gets a precise error back.
const STRICT_UNSUPPORTED = new Set([
  'minLength',
  'maxLength',
  'default',
  'examples',
  'minProperties',
  'maxProperties',
]);

/**
 * The schema as strict mode accepts it, or undefined when it cannot be made strict: strict mode needs
 * every object closed and every property required, and a schema with optional properties is sent
 * non-strict rather than rewritten.
 */
export function strictSchema(schema: unknown): Record<string, unknown> | undefined {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return undefined;
  const s = schema as Record<string, unknown>;
  if (s.type === 'object' || s.properties) {
    const props = Object.keys((s.properties as object | undefined) ?? {});
    const required = new Set((s.required as string[] | undefined) ?? []);
    if (s.additionalProperties !== false || props.some((p) => !required.has(p))) return undefined;
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(s)) {
    if (STRICT_UNSUPPORTED.has(key)) continue;
    if (key === 'properties' || key === '$defs') {
      const mapped: Record<string, unknown> = {};
      for (const [name, sub] of Object.entries(value as Record<string, unknown>)) {
        const strict = strictSchema(sub);
        if (!strict) return undefined;
        mapped[name] = strict;
      }
      out[key] = mapped;
    } else if (key === 'items' || key === 'anyOf' || key === 'oneOf' || key === 'allOf') {
      const list = Array.isArray(value) ? value.map(strictSchema) : [strictSchema(value)];
      if (list.some((x) => !x)) return undefined;
      out[key] = Array.isArray(value) ? list : list[0];
    } else out[key] = value;
  }
  return out;
}

export function convertResponsesTools(tools: ToolSpec[]): FunctionTool[] {
  return tools.map((t) => {
    const strict = strictSchema(t.parameters);
    return {
      type: 'function',
      name: t.name,
      description: t.description,
      parameters: strict ?? t.parameters,
      strict: Boolean(strict),
    };
  });
}

export function convertResponsesInput(messages: Message[]): ResponseInputItem[] {
  const items: ResponseInputItem[] = [];
  for (const m of messages) {
    if (m.role === 'user') items.push({ role: 'user', content: m.content });
    else if (m.role === 'toolResult') {
      items.push({
        type: 'function_call_output',
        call_id: m.toolCallId,
        output: m.isError ? `Error: ${m.content}` : m.content,
      });
    } else {
      for (const part of m.content) {
        if (part.type === 'reasoning' && part.provider === 'openai')
          items.push(part.data as ResponseReasoningItem);
        else if (part.type === 'text' && part.text) items.push({ role: 'assistant', content: part.text });
        else if (part.type === 'toolCall') {
          items.push({
            type: 'function_call',
            call_id: part.id,
            name: part.name,
            arguments: part.argumentsText,
          });
        }
      }
    }
  }
  return items;
}

export function buildResponsesRequest(request: ModelRequest): ResponseCreateParamsStreaming {
  const body: ResponseCreateParamsStreaming = {
    model: request.model,
    input: convertResponsesInput(request.messages),
    stream: true,
    // We keep the conversation ourselves, so nothing needs to be stored server-side.
    store: false,
  };
  if (request.system) body.instructions = request.system;
  if (request.maxTokens) body.max_output_tokens = request.maxTokens;
  if (request.tools?.length) {
    body.tools = convertResponsesTools(request.tools);
    if (request.toolChoice === 'none') body.tool_choice = 'none';
  }
  if (isReasoningModel(request.model)) body.include = ['reasoning.encrypted_content'];
  return body;
}

export function mapResponsesStatus(
  status: string | undefined,
  incompleteReason: string | undefined,
  hasToolCalls: boolean,
): StopReason {
  if (status === 'incomplete') return incompleteReason === 'content_filter' ? 'refusal' : 'length';
  if (status === 'failed') return 'error';
  if (status === 'cancelled') return 'aborted';
  return hasToolCalls ? 'toolUse' : 'stop';
}

export function createOpenAIResponsesProvider(options: { maxRetries?: number } = {}): Provider {
  // The SDK reads OPENAI_API_KEY and OPENAI_BASE_URL itself; we never override them.
  const client = new OpenAI({ maxRetries: options.maxRetries ?? 3 });
  return {
    name: 'openai',
    async complete(request): Promise<AssistantMessage> {
      // Output items by position; text and arguments accumulate from deltas until the item is done.
      const parts = new Map<number, AssistantPart>();
      let usage = fromOpenAIResponsesUsage({});
      let status: string | undefined;
      let incompleteReason: string | undefined;
      let refused = false;
      let model = request.model;
      const body = buildResponsesRequest(request);
      const ordered = () => [...parts.entries()].sort(([a], [b]) => a - b).map(([, p]) => p);
      // Once the stream has begun the call is billed, even if cancelled. response.created carries no
      // usage, so a cancelled call's input is estimated from the request (see partial.ts).
      let partial: (() => AssistantMessage) | undefined;
      const own = requestSignal(request.signal);
      try {
        const stream = await client.responses.create(body, { signal: own.signal });
        partial = () =>
          cancelledMessage({ provider: 'openai', model, content: ordered(), requestBody: body });
        for await (const event of stream) {
          switch (event.type) {
            case 'response.created':
              model = event.response.model; // the dated snapshot, priced even if the call is cancelled
              break;
            case 'response.output_item.added':
            case 'response.output_item.done': {
              const item = event.item;
              if (item.type === 'function_call') {
                if (event.type === 'response.output_item.added') {
                  request.onEvent?.({ type: 'toolCallStart', id: item.call_id, name: item.name });
                }
                parts.set(event.output_index, {
                  type: 'toolCall',
                  id: item.call_id,
                  name: item.name,
                  argumentsText: item.arguments,
                });
              } else if (item.type === 'reasoning') {
                const text = (item.summary ?? []).map((s) => s.text).join('\n');
                parts.set(event.output_index, { type: 'reasoning', provider: 'openai', text, data: item });
              } else if (item.type === 'message') {
                const done = item.content
                  .map((c) => (c.type === 'output_text' ? c.text : c.type === 'refusal' ? c.refusal : ''))
                  .join('');
                const prev = parts.get(event.output_index);
                const text =
                  event.type === 'response.output_item.done'
                    ? done
                    : prev?.type === 'text'
                      ? prev.text
                      : done;
                parts.set(event.output_index, { type: 'text', text });
              }
              break;
            }
            case 'response.output_text.delta':
            case 'response.refusal.delta': {
              if (event.type === 'response.refusal.delta') refused = true;
              const prev = parts.get(event.output_index);
              parts.set(event.output_index, {
                type: 'text',
                text: (prev?.type === 'text' ? prev.text : '') + event.delta,
              });
              request.onEvent?.({ type: 'text', delta: event.delta });
              break;
            }
            case 'response.function_call_arguments.delta': {
              const prev = parts.get(event.output_index);
              if (prev?.type === 'toolCall') prev.argumentsText += event.delta;
              break;
            }
            case 'response.reasoning_summary_text.delta':
              request.onEvent?.({ type: 'reasoning', delta: event.delta });
              break;
            case 'response.completed':
            case 'response.incomplete':
            case 'response.failed': {
              const r = event.response;
              model = r.model;
              status = r.status ?? undefined;
              incompleteReason = r.incomplete_details?.reason ?? undefined;
              if (r.usage) usage = fromOpenAIResponsesUsage(r.usage);
              if (event.type === 'response.failed')
                throw new Error(r.error?.message ?? 'the response failed');
              break;
            }
            case 'error':
              throw new Error(event.message);
          }
        }
      } catch (error) {
        throw translateError(error, 'OpenAI', request.model, request.signal, partial);
      } finally {
        own.release();
      }
      if (status === undefined) throw streamEnded('OpenAI', request.signal, partial);
      const content = ordered();
      const hasToolCalls = content.some((p) => p.type === 'toolCall');
      const stopReason = refused ? 'refusal' : mapResponsesStatus(status, incompleteReason, hasToolCalls);
      return { role: 'assistant', content, provider: 'openai', model, usage, stopReason };
    },
  };
}
