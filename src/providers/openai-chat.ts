import { randomUUID } from 'node:crypto';
import OpenAI from 'openai';
import type {
  ChatCompletionChunk,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions.js';
import type {
  AssistantMessage,
  Message,
  ModelRequest,
  Provider,
  StopReason,
  ToolCall,
  ToolSpec,
} from '../types.js';
import { streamEnded, translateError } from './errors.js';
import { cancelledMessage } from './partial.js';
import { requestSignal } from './request-signal.js';
import { StreamedText } from './think-tags.js';
import { fromOpenAIChatUsage } from './usage.js';

export function mapChatFinishReason(reason: string | null | undefined, hasToolCalls: boolean): StopReason {
  switch (reason) {
    case 'length':
      return 'length';
    case 'content_filter':
      return 'refusal';
    case 'tool_calls':
    case 'function_call':
      return 'toolUse';
    default:
      // Some servers say "stop" even when the reply holds tool calls.
      return hasToolCalls ? 'toolUse' : 'stop';
  }
}

export function convertChatTools(tools: ToolSpec[]): ChatCompletionTool[] {
  return tools.map((t) => ({
    type: 'function',
    function: { name: t.name, description: t.description, parameters: t.parameters },
  }));
}

export function convertChatMessages(
  system: string | undefined,
  messages: Message[],
): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = system ? [{ role: 'system', content: system }] : [];
  for (const m of messages) {
    if (m.role === 'user') out.push({ role: 'user', content: m.content });
    else if (m.role === 'toolResult') {
      out.push({
        role: 'tool',
        tool_call_id: m.toolCallId,
        content: m.isError ? `Error: ${m.content}` : m.content,
      });
    } else {
      const text = m.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('');
      const calls = m.content.filter((p): p is ToolCall => p.type === 'toolCall');
      out.push({
        role: 'assistant',
        content: text || (calls.length ? null : ''),
        ...(calls.length
          ? {
              tool_calls: calls.map((c) => ({
                id: c.id,
                type: 'function' as const,
                function: { name: c.name, arguments: c.argumentsText },
              })),
            }
          : {}),
      });
    }
  }
  return out;
}

/**
 * Reassembles `delta.tool_calls` fragments by `index`. A fragment carrying a different id at a used
 * index starts a new call (some servers number every call 0). A call that never gets an id is given
 * one, which both the call and its tool message then use.
 */
export class ToolCallAssembler {
  private readonly calls: ToolCall[] = [];
  private readonly byIndex = new Map<number, ToolCall>();
  constructor(private readonly onStart?: (call: ToolCall) => void) {}

  push(fragment: NonNullable<ChatCompletionChunk.Choice.Delta['tool_calls']>[number]): void {
    const index = fragment.index ?? 0; // a few servers leave it out when there is only one call
    let call = this.byIndex.get(index);
    if (!call || (fragment.id && call.id && fragment.id !== call.id && call.name)) {
      call = { type: 'toolCall', id: fragment.id ?? '', name: '', argumentsText: '' };
      this.byIndex.set(index, call);
      this.calls.push(call);
    }
    if (fragment.id && !call.id) call.id = fragment.id;
    if (fragment.function?.name) {
      const first = !call.name;
      call.name += fragment.function.name;
      if (first) this.onStart?.(call);
    }
    if (fragment.function?.arguments) call.argumentsText += fragment.function.arguments;
  }

  finish(): ToolCall[] {
    for (const call of this.calls)
      if (!call.id) call.id = `call_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
    return this.calls;
  }
}

export function buildChatRequest(request: ModelRequest): ChatCompletionCreateParamsStreaming {
  const body: ChatCompletionCreateParamsStreaming = {
    model: request.model,
    messages: convertChatMessages(request.system, request.messages),
    stream: true,
    stream_options: { include_usage: true },
  };
  // `max_tokens` is the name every compatible server (Ollama, vLLM, llama.cpp) understands; jsonSchema is
  // left out (servers differ in how they take one, and the reply is read tolerantly anyway).
  if (request.maxTokens) body.max_tokens = request.maxTokens;
  if (request.tools?.length) {
    body.tools = convertChatTools(request.tools);
    if (request.toolChoice === 'none') body.tool_choice = 'none';
  }
  return body;
}

/**
 * The SDK reads an error's message from `error.message` in the body, and vLLM's body has it at the top
 * (`{"object":"error","message":"This model's maximum context length is …"}`): without this, the message
 * is "400 status code (no body)". llama.cpp's context refusal keeps its sizes (n_ctx) in the message.
 */
class CompatibleClient extends OpenAI {
  protected override makeStatusError(
    status: number,
    error: object,
    message: string | undefined,
    headers: Headers,
  ) {
    const body = error as { error?: Record<string, unknown>; message?: unknown } | undefined;
    let e = body;
    if (body && !body.error && typeof body.message === 'string') e = { error: body };
    const inner = e?.error;
    if (inner && typeof inner.message === 'string' && typeof inner.n_ctx === 'number')
      inner.message = `${inner.message} (n_ctx ${inner.n_ctx}, n_prompt_tokens ${inner.n_prompt_tokens ?? '?'})`;
    return super.makeStatusError(status, e as object, message, headers);
  }
}

export function createOpenAIChatProvider(options: {
  name: 'openai-compatible' | 'ollama';
  baseURL?: string;
  apiKey?: string;
  maxRetries?: number;
  /** AGENT_CONTEXT_TOKENS: the server's context, when the user says it (else asked of the server). */
  contextTokens?: number;
}): Provider {
  const client = new CompatibleClient({
    maxRetries: options.maxRetries ?? 3,
    ...(options.baseURL ? { baseURL: options.baseURL } : {}),
    ...(options.apiKey ? { apiKey: options.apiKey } : {}),
  });
  const vendor = options.name === 'ollama' ? 'Ollama' : 'the OpenAI-compatible server';
  return {
    name: options.name,
    contextTokens: async (model) =>
      options.contextTokens ??
      (options.baseURL ? discoverContext(options.baseURL, model, options.apiKey) : undefined),
    async complete(request): Promise<AssistantMessage> {
      // Inline `<think>` reasoning (local models) goes where the server's own reasoning field goes.
      const streamed = new StreamedText(request.onEvent);
      const text = streamed.part;
      const assembler = new ToolCallAssembler((call) =>
        request.onEvent?.({ type: 'toolCallStart', id: call.id, name: call.name }),
      );
      let usage = fromOpenAIChatUsage({});
      let usageReported = false;
      let finish: string | null | undefined;
      let model = request.model;
      const body = buildChatRequest(request);
      // Once the stream has begun the call is billed, even if cancelled. Usage comes only in the last
      // chunk, so a cancelled call's input is estimated from the request (see partial.ts).
      let partial: (() => AssistantMessage) | undefined;
      const own = requestSignal(request.signal);
      try {
        const stream = await client.chat.completions.create(body, { signal: own.signal });
        partial = () =>
          cancelledMessage({
            provider: options.name,
            model,
            content: [...(text.text ? [text] : []), ...assembler.finish()],
            unkeptChars: streamed.reasoningChars,
            reported: usageReported ? usage : undefined,
            requestBody: body,
          });
        for await (const chunk of stream) {
          if (chunk.model) model = chunk.model;
          if (chunk.usage) {
            usage = fromOpenAIChatUsage(chunk.usage);
            usageReported = true;
          }
          const choice = chunk.choices?.[0];
          if (!choice) continue;
          const delta = choice.delta ?? {};
          if (delta.content) streamed.content(delta.content);
          // vLLM and DeepSeek call it reasoning_content, Ollama reasoning: shown, never sent back.
          const reasoning =
            (delta as { reasoning_content?: string; reasoning?: string }).reasoning_content ??
            (delta as { reasoning?: string }).reasoning;
          if (reasoning) streamed.reasoning(reasoning);
          for (const fragment of delta.tool_calls ?? []) assembler.push(fragment);
          if (choice.finish_reason) finish = choice.finish_reason;
        }
      } catch (error) {
        throw translateError(error, vendor, request.model, request.signal, partial);
      } finally {
        own.release();
      }
      if (finish === undefined) throw streamEnded(vendor, request.signal, partial);
      streamed.end();
      const calls = assembler.finish();
      const content = [...(text.text ? [text] : []), ...calls];
      return {
        role: 'assistant',
        content,
        provider: options.name,
        model,
        usage,
        stopReason: mapChatFinishReason(finish, calls.length > 0),
      };
    },
  };
}

/** Contexts servers told, by server and model, for the process's life. */
const discovered = new Map<string, Promise<number | undefined>>();

/**
 * A compatible server's context where it says it: vLLM lists `max_model_len` with each model in
 * GET /v1/models; llama.cpp's server gives `n_ctx` in GET /props (at its root). Undefined otherwise (an
 * Ollama behind its /v1 route says neither). Asked once per model, each question briefly.
 */
export function discoverContext(
  baseURL: string,
  model: string,
  apiKey?: string,
): Promise<number | undefined> {
  const key = `${baseURL}\n${model}`;
  let found = discovered.get(key);
  if (!found) {
    found = askContext(baseURL.replace(/\/+$/, ''), model, apiKey);
    discovered.set(key, found);
  }
  return found;
}

async function askContext(base: string, model: string, apiKey?: string): Promise<number | undefined> {
  const get = async (url: string): Promise<unknown> => {
    try {
      const r = await fetch(url, {
        headers: apiKey && apiKey !== 'not-needed' ? { authorization: `Bearer ${apiKey}` } : {},
        signal: AbortSignal.timeout(5000),
      });
      return r.ok ? await r.json() : undefined;
    } catch {
      return undefined;
    }
  };
  const whole = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : undefined);
  const models = (await get(`${base}/models`)) as
    | { data?: { id?: string; max_model_len?: unknown }[] }
    | undefined;
  const listed =
    models?.data?.find((m) => m.id === model) ?? (models?.data?.length === 1 ? models.data[0] : undefined);
  const fromList = whole(listed?.max_model_len);
  if (fromList) return fromList;
  const props = (await get(`${base.replace(/\/v1$/, '')}/props`)) as
    | { n_ctx?: unknown; default_generation_settings?: { n_ctx?: unknown } }
    | undefined;
  return whole(props?.default_generation_settings?.n_ctx) ?? whole(props?.n_ctx);
}
