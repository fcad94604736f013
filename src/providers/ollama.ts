import { createRequire } from 'node:module';
import type { Agent } from 'undici';
import { AbortedError, AgentError, ProviderError } from '../errors.js';
import type { AssistantMessage, ModelRequest, Provider, ToolCall } from '../types.js';
import { backOff, retryableStatus } from './back-off.js';
import { contextToAsk, promptTokens } from './context.js';
import { streamEnded } from './errors.js';
import {
  convertOllamaMessages,
  convertOllamaTools,
  fromOllamaToolCall,
  fromOllamaUsage,
  mapOllamaDoneReason,
  type OllamaChunk,
  trainedContext,
} from './ollama-map.js';
import { cancelledMessage } from './partial.js';
import { requestSignal } from './request-signal.js';
import { StreamedText } from './think-tags.js';

// Ollama's own API, spoken with fetch (its wire format is small: JSON in, newline-delimited JSON out).
// Unlike its OpenAI-compatible route, it takes a context size per request (options.num_ctx): each request
// gets one that fits its prompt and output, up to the model's trained context (POST /api/show, read once
// per model) and AGENT_NUM_CTX. Without it Ollama runs a default context and cuts longer prompts silently.

export interface OllamaOptions {
  /** The server's root, from OLLAMA_HOST (see ollama-host.ts). */
  baseUrl: string;
  /** AGENT_NUM_CTX: the largest context to ask for (memory is the user's to cap). */
  numCtx?: number;
  maxRetries?: number;
}

/**
 * The room kept in the context for the reply: the request's budget, but no more than this (the hosted
 * APIs' budgets are generous, and a local model's memory grows with every token of context it is given).
 */
const OUTPUT_ROOM = 8192;
/** The room kept when a request sets no budget (the chat's). */
const DEFAULT_OUTPUT = 4096;
const VENDOR = 'Ollama';

// A model that loads, then reads a long prompt on a CPU, may take many minutes to send its first line.
let agent: Agent | undefined;
const http = () => createRequire(import.meta.url)('undici') as typeof import('undici');
const dispatcher = () => {
  agent ??= new (http().Agent)({ headersTimeout: 30 * 60_000, bodyTimeout: 10 * 60_000 });
  return agent;
};

/** Trained contexts by server and model, for the process's life (a failed look-up is asked again). */
const trained = new Map<string, Promise<number | undefined>>();
/** The largest num_ctx asked per server and model: asking less would make Ollama reload the model. */
const asked = new Map<string, number>();

export function createOllamaProvider(options: OllamaOptions): Provider {
  const base = options.baseUrl;
  const retries = options.maxRetries ?? 3;

  const post = async (path: string, body: unknown, signal?: AbortSignal) => {
    for (let attempt = 0; ; attempt++) {
      let response: Awaited<ReturnType<ReturnType<typeof http>['fetch']>>;
      try {
        response = await http().fetch(`${base}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
          signal,
          dispatcher: dispatcher(),
        });
      } catch (error) {
        if (signal?.aborted) throw new AbortedError();
        if (refused(error)) throw notRunning(base);
        if (attempt < retries) {
          await backOff(attempt, null, signal);
          continue;
        }
        throw new ProviderError(
          `Could not reach Ollama at ${base}: ${causeOf(error)}. Check that it is running, and OLLAMA_HOST.`,
        );
      }
      if (response.ok) return response;
      if (retryableStatus(response.status) && attempt < retries) {
        await response.body?.cancel();
        await backOff(attempt, response.headers.get('retry-after'), signal);
        continue;
      }
      throw await httpError(response);
    }
  };

  const contextTokens = async (model: string): Promise<number | undefined> => {
    const key = `${base}\n${model}`;
    let known = trained.get(key);
    if (!known) {
      known = post('/api/show', { model })
        .then(async (r) => trainedContext(await r.json()))
        .catch(() => {
          // Not reachable, or no such model: the chat request says which; asked again next time.
          trained.delete(key);
          return undefined;
        });
      trained.set(key, known);
    }
    const context = await known;
    if (context === undefined) return options.numCtx;
    return options.numCtx === undefined ? context : Math.min(context, options.numCtx);
  };

  return {
    name: 'ollama',
    contextTokens,
    async complete(request): Promise<AssistantMessage> {
      const cap = await contextTokens(request.model);
      const body = buildOllamaRequest(request, cap, `${base}\n${request.model}`);
      // Older servers (and models whose template lacks a thinking field) put reasoning inline in <think>.
      const streamed = new StreamedText(request.onEvent);
      const text = streamed.part;
      const calls: ToolCall[] = [];
      let done: OllamaChunk | undefined;
      let model = request.model;
      const partial = () =>
        cancelledMessage({
          provider: 'ollama',
          model,
          content: [...(text.text ? [text] : []), ...calls],
          unkeptChars: streamed.reasoningChars,
          requestBody: body,
        });
      const own = requestSignal(request.signal);
      // Once the stream has begun the call has used the server; a cancel then keeps what arrived.
      let started = false;
      try {
        const response = await post('/api/chat', body, own.signal);
        started = true;
        for await (const chunk of ndjson(response.body)) {
          if (chunk.error) throw new ProviderError(`Ollama failed while answering: ${chunk.error}`);
          if (chunk.model) model = chunk.model;
          const m = chunk.message;
          if (m?.thinking) streamed.reasoning(m.thinking);
          if (m?.content) streamed.content(m.content);
          for (const c of m?.tool_calls ?? []) {
            const call = fromOllamaToolCall(c);
            calls.push(call);
            request.onEvent?.({ type: 'toolCallStart', id: call.id, name: call.name });
          }
          if (chunk.done) done = chunk;
        }
      } catch (error) {
        if (request.signal?.aborted) throw new AbortedError({ partial: started ? partial() : undefined });
        if (error instanceof AgentError) throw error;
        throw new ProviderError(`Ollama's reply broke off: ${causeOf(error)}`);
      } finally {
        own.release();
      }
      if (!done) throw streamEnded(VENDOR, request.signal, partial);
      streamed.end();
      return {
        role: 'assistant',
        content: [...(text.text ? [text] : []), ...calls],
        provider: 'ollama',
        model,
        usage: fromOllamaUsage(done),
        stopReason: mapOllamaDoneReason(done.done_reason, calls.length > 0),
      };
    },
  };
}

/**
 * The /api/chat body. num_ctx fits the prompt and the output budget (see contextToAsk); num_predict is the
 * budget, less where the context leaves less room. `format` carries a JSON schema (constrained decoding).
 */
export function buildOllamaRequest(request: ModelRequest, cap: number | undefined, key?: string) {
  const prompt = promptTokens(request);
  const output = Math.min(request.maxTokens ?? DEFAULT_OUTPUT, OUTPUT_ROOM);
  const numCtx = contextToAsk(prompt, output, cap, key ? asked.get(key) : undefined);
  if (key) asked.set(key, Math.max(asked.get(key) ?? 0, numCtx));
  const options: Record<string, number> = { num_ctx: numCtx };
  if (request.maxTokens) options.num_predict = Math.max(256, Math.min(request.maxTokens, numCtx - prompt));
  // Ollama has no tool_choice: "none" (history may hold calls, no new ones) is the tools left out.
  const tools =
    request.tools?.length && request.toolChoice !== 'none' ? convertOllamaTools(request.tools) : [];
  return {
    model: request.model,
    messages: convertOllamaMessages(request.system, request.messages),
    stream: true,
    ...(tools.length ? { tools } : {}),
    ...(request.jsonSchema ? { format: request.jsonSchema } : {}),
    options,
  };
}

/** Newline-delimited JSON, one object a line, whatever the chunk boundaries. */
async function* ndjson(body: AsyncIterable<Uint8Array> | null): AsyncGenerator<OllamaChunk> {
  if (!body) return;
  const decoder = new TextDecoder();
  let held = '';
  const parse = (line: string): OllamaChunk => {
    try {
      return JSON.parse(line) as OllamaChunk;
    } catch {
      throw new ProviderError(`Ollama sent a line that is not JSON: ${line.slice(0, 120)}`);
    }
  };
  for await (const bytes of body) {
    held += decoder.decode(bytes, { stream: true });
    const lines = held.split('\n');
    held = lines.pop()!;
    for (const line of lines) if (line.trim()) yield parse(line);
  }
  held += decoder.decode();
  if (held.trim()) yield parse(held);
}

/** Ollama's errors are `{"error": "…"}`; a missing model is a 404 that says to pull it. */
async function httpError(response: { status: number; statusText: string; text(): Promise<string> }) {
  const raw = await response.text().catch(() => '');
  let detail = raw.trim() || response.statusText;
  try {
    const parsed = JSON.parse(raw) as { error?: unknown };
    if (typeof parsed.error === 'string') detail = parsed.error;
  } catch {}
  const missing = /model ["']?([^"'\s]+)["']? not found/i.exec(detail);
  if (response.status === 404 && missing)
    return new ProviderError(
      `Ollama has no model "${missing[1]}" (404): ${detail}. Pull it with: ollama pull ${missing[1]}`,
      404,
    );
  if (response.status === 400) return new ProviderError(`Ollama refused the request (400): ${detail}`, 400);
  if (response.status >= 500)
    return new ProviderError(
      `Ollama had a server error (${response.status}), still after retries: ${detail}`,
      response.status,
    );
  return new ProviderError(`Ollama returned ${response.status}: ${detail}`, response.status);
}

const notRunning = (base: string) =>
  new ProviderError(
    `Ollama is not running at ${base} (connection refused). Start it (\`ollama serve\`, or the Ollama app), or set OLLAMA_HOST to where it runs.`,
  );

/** fetch's "fetch failed" carries the socket's error as its cause (an AggregateError when both IPv4 and IPv6 were tried). */
function refused(error: unknown): boolean {
  const cause = (error as { cause?: { code?: string; errors?: { code?: string }[] } })?.cause;
  return cause?.code === 'ECONNREFUSED' || (cause?.errors ?? []).some((e) => e.code === 'ECONNREFUSED');
}

function causeOf(error: unknown): string {
  const cause = (error as { cause?: { message?: string; code?: string } })?.cause;
  return String(cause?.message || cause?.code || (error as Error)?.message || error).replace(/\.+$/, '');
}
