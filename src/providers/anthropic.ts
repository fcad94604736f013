import { BaseAnthropic } from '@anthropic-ai/sdk/client';
import {
  type StopReason as AnthropicStopReason,
  type Tool as AnthropicTool,
  type ContentBlockParam,
  type MessageCreateParamsStreaming,
  type MessageParam,
  Messages,
  type ToolResultBlockParam,
} from '@anthropic-ai/sdk/resources/messages/messages';
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
import { parseToolArguments } from './json.js';
import { cancelledMessage } from './partial.js';
import { requestSignal } from './request-signal.js';
import { fromAnthropicUsage } from './usage.js';

const CACHE = { type: 'ephemeral' } as const;

export function mapAnthropicStopReason(reason: AnthropicStopReason | string | null | undefined): StopReason {
  switch (reason) {
    case 'tool_use':
      return 'toolUse';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'refusal':
      return 'refusal';
    default:
      return 'stop'; // end_turn, stop_sequence, pause_turn
  }
}

/** Tools with a cache breakpoint on the last one, so the tool definitions are a cached prefix. */
export function convertAnthropicTools(tools: ToolSpec[]): AnthropicTool[] {
  return tools.map((t, i) => ({
    name: t.name,
    description: t.description,
    input_schema: t.parameters as AnthropicTool['input_schema'],
    ...(i === tools.length - 1 ? { cache_control: CACHE } : {}),
  }));
}

/**
 * Our history → Messages API turns. All tool results of a turn go into one user message, in call order;
 * consecutive user content is merged so roles always alternate. The last block carries a cache
 * breakpoint, so each turn of a long chat reads the previous turns from the cache.
 */
export function convertAnthropicMessages(messages: Message[]): MessageParam[] {
  const out: MessageParam[] = [];
  const pushUser = (block: ContentBlockParam) => {
    const last = out.at(-1);
    if (last?.role === 'user' && Array.isArray(last.content)) last.content.push(block);
    else out.push({ role: 'user', content: [block] });
  };
  for (const m of messages) {
    if (m.role === 'user') pushUser({ type: 'text', text: m.content });
    else if (m.role === 'toolResult') {
      const block: ToolResultBlockParam = {
        type: 'tool_result',
        tool_use_id: m.toolCallId,
        content: m.content,
      };
      if (m.isError) block.is_error = true;
      pushUser(block);
    } else {
      const content: ContentBlockParam[] = [];
      for (const part of m.content) {
        if (part.type === 'text' && part.text) content.push({ type: 'text', text: part.text });
        else if (part.type === 'toolCall') {
          content.push({
            type: 'tool_use',
            id: part.id,
            name: part.name,
            input: parseToolArguments(part.argumentsText).value ?? {},
          });
        } else if (part.type === 'reasoning' && part.provider === 'anthropic') {
          content.push(part.data as ContentBlockParam); // thinking blocks go back unchanged, signature included
        }
      }
      if (content.length === 0) content.push({ type: 'text', text: '(no answer)' });
      out.push({ role: 'assistant', content });
    }
  }
  const last = out.at(-1);
  if (last && Array.isArray(last.content)) {
    const block = last.content.at(-1);
    if (block && block.type !== 'thinking' && block.type !== 'redacted_thinking') {
      (block as { cache_control?: typeof CACHE }).cache_control = CACHE;
    }
  }
  return out;
}

export function buildAnthropicRequest(request: ModelRequest): MessageCreateParamsStreaming {
  const body: MessageCreateParamsStreaming = {
    model: request.model,
    // The API requires a cap; adaptive thinking counts against it, so leave room.
    max_tokens: request.maxTokens ?? 16_384,
    messages: convertAnthropicMessages(request.messages),
    stream: true,
  };
  if (request.system) body.system = [{ type: 'text', text: request.system, cache_control: CACHE }];
  if (request.tools?.length) {
    body.tools = convertAnthropicTools(request.tools);
    if (request.toolChoice === 'none') body.tool_choice = { type: 'none' };
  }
  return body;
}

interface BlockState {
  part: AssistantPart;
  json?: string;
  thinking?:
    | { type: 'thinking'; thinking: string; signature: string }
    | { type: 'redacted_thinking'; data: string };
}

/**
 * The SDK's client with the Messages API only. `Anthropic` also builds every other resource (beta,
 * organization, skills, …): 735 KB bundled, which V8 compiles before the first request, against 233 KB.
 */
class MessagesClient extends BaseAnthropic {
  messages = new Messages(this);
}

export function createAnthropicProvider(options: { maxRetries?: number } = {}): Provider {
  // The SDK reads ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL itself; we never override them.
  const client = new MessagesClient({ maxRetries: options.maxRetries ?? 3 });
  return {
    name: 'anthropic',
    async complete(request): Promise<AssistantMessage> {
      const blocks = new Map<number, BlockState>();
      let usage = fromAnthropicUsage({});
      let usageReported = false;
      let stopReason: StopReason | undefined;
      let model = request.model;
      const body = buildAnthropicRequest(request);
      const content = () => [...blocks.entries()].sort(([a], [b]) => a - b).map(([, s]) => s.part);
      // Once the stream has begun the call is billed, even if cancelled: message_start has told the
      // input and cache tokens by then.
      let partial: (() => AssistantMessage) | undefined;
      const own = requestSignal(request.signal);
      try {
        const stream = await client.messages.create(body, { signal: own.signal });
        partial = () =>
          cancelledMessage({
            provider: 'anthropic',
            model,
            content: content(),
            reported: usageReported ? usage : undefined,
            requestBody: body,
          });
        for await (const event of stream) {
          switch (event.type) {
            case 'message_start':
              model = event.message.model;
              usage = fromAnthropicUsage(event.message.usage);
              usageReported = true;
              break;
            case 'content_block_start': {
              const b = event.content_block;
              if (b.type === 'text') blocks.set(event.index, { part: { type: 'text', text: b.text } });
              else if (b.type === 'tool_use') {
                blocks.set(event.index, {
                  part: { type: 'toolCall', id: b.id, name: b.name, argumentsText: '' },
                  json: '',
                });
                request.onEvent?.({ type: 'toolCallStart', id: b.id, name: b.name });
              } else if (b.type === 'thinking') {
                const thinking = {
                  type: 'thinking' as const,
                  thinking: b.thinking ?? '',
                  signature: b.signature ?? '',
                };
                blocks.set(event.index, {
                  part: { type: 'reasoning', provider: 'anthropic', text: b.thinking ?? '', data: thinking },
                  thinking,
                });
              } else if (b.type === 'redacted_thinking') {
                const thinking = { type: 'redacted_thinking' as const, data: b.data };
                blocks.set(event.index, {
                  part: { type: 'reasoning', provider: 'anthropic', text: '', data: thinking },
                  thinking,
                });
              }
              break;
            }
            case 'content_block_delta': {
              const state = blocks.get(event.index);
              if (!state) break;
              const d = event.delta;
              if (d.type === 'text_delta' && state.part.type === 'text') {
                state.part.text += d.text;
                request.onEvent?.({ type: 'text', delta: d.text });
              } else if (d.type === 'input_json_delta' && state.part.type === 'toolCall') {
                state.part.argumentsText += d.partial_json;
              } else if (
                d.type === 'thinking_delta' &&
                state.thinking?.type === 'thinking' &&
                state.part.type === 'reasoning'
              ) {
                state.thinking.thinking += d.thinking;
                state.part.text += d.thinking;
                request.onEvent?.({ type: 'reasoning', delta: d.thinking });
              } else if (d.type === 'signature_delta' && state.thinking?.type === 'thinking') {
                state.thinking.signature += d.signature;
              }
              break;
            }
            case 'message_delta': {
              stopReason = mapAnthropicStopReason(event.delta.stop_reason);
              // The final counts: output always, input and cache fields when the server sends them again,
              // and the sum of every iteration when the server ran several.
              const u = event.usage as typeof event.usage & {
                iterations?: Parameters<typeof fromAnthropicUsage>[0][];
              };
              if (u.iterations?.length) {
                usage = fromAnthropicUsage(u);
                break;
              }
              usage = {
                ...usage,
                output: u.output_tokens ?? usage.output,
                ...(u.input_tokens != null ? { input: u.input_tokens } : {}),
                ...(u.cache_read_input_tokens != null ? { cacheRead: u.cache_read_input_tokens } : {}),
                ...(u.cache_creation_input_tokens != null
                  ? { cacheWrite: u.cache_creation_input_tokens }
                  : {}),
              };
              break;
            }
          }
        }
      } catch (error) {
        throw translateError(error, 'Anthropic', request.model, request.signal, partial);
      } finally {
        own.release();
      }
      if (!stopReason) throw streamEnded('Anthropic', request.signal, partial);
      return { role: 'assistant', content: content(), provider: 'anthropic', model, usage, stopReason };
    },
  };
}
