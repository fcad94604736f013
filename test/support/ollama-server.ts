import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// A loopback Ollama that behaves as the real one does, in the shapes of Ollama's API documentation:
// POST /api/chat streams newline-delimited JSON (`message.content` pieces, `message.thinking`, a message
// with `tool_calls` whose arguments are objects, then `done: true` with done_reason and the counts);
// POST /api/show gives `model_info` with `<arch>.context_length`; GET /api/tags lists the models. A prompt
// longer than the request's num_ctx (4,096 when none is sent, as Ollama's default) is cut from its start,
// and prompt_eval_count counts only what was kept. Its OpenAI-compatible route (/v1/chat/completions)
// ignores any context setting, as Ollama's does, and cuts the same way.
// The fake counts tokens as four characters each (real tokenizers give about that for English).

export const FAKE_CHARS_PER_TOKEN = 4;
const tokens = (text: string) => Math.ceil(text.length / FAKE_CHARS_PER_TOKEN);

export interface FakeModel {
  name: string;
  /** The trained context /api/show reports. */
  context: number;
  arch?: string;
}

export interface ChatSeen {
  route: 'native' | 'openai';
  model: string;
  body: any;
  /** The prompt as the model saw it (after any cut): each message as "role: content". */
  prompt: string;
  /** The prompt's tokens before the cut, and those kept. */
  promptTokens: number;
  kept: number;
  numCtx: number;
}

export interface FakeReply {
  text?: string;
  thinking?: string;
  calls?: { name: string; args: Record<string, unknown> }[];
  /** Characters per streamed piece (default 7). */
  piece?: number;
  /** Sent before the rest of the reply: the rest waits for this promise (a slow model). */
  firstPiece?: string;
  wait?: Promise<void>;
}

export type FakeBrain = (seen: ChatSeen) => FakeReply | Promise<FakeReply>;

export interface OllamaServerOptions {
  models: FakeModel[];
  brain: FakeBrain;
  /** The context used when a request sends no num_ctx (and on the OpenAI route): Ollama's 4,096. */
  defaultContext?: number;
}

const render = (messages: any[], tools: unknown): string =>
  [
    ...(tools ? [`tools: ${JSON.stringify(tools)}`] : []),
    ...messages.map(
      (m) => `${m.role}: ${m.content ?? ''}${m.tool_calls ? ` ${JSON.stringify(m.tool_calls)}` : ''}`,
    ),
  ].join('\n');

export async function startOllamaServer(o: OllamaServerOptions) {
  const requests: { method: string; url: string; body: any }[] = [];
  const chats: ChatSeen[] = [];
  const find = (name: string) =>
    o.models.find((m) => m.name === name || `${m.name}:latest` === name || m.name === `${name}:latest`);
  const json = (res: ServerResponse, status: number, value: unknown) =>
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(value));
  const notFound = (res: ServerResponse, name: string) =>
    json(res, 404, { error: `model "${name}" not found, try pulling it first` });

  /** What the model sees of a request: its prompt, cut from the start to `numCtx` tokens. */
  const see = (route: ChatSeen['route'], body: any, numCtx: number): ChatSeen => {
    const whole = render(body.messages ?? [], body.tools);
    const promptTokens = tokens(whole);
    const prompt = promptTokens > numCtx ? whole.slice(whole.length - numCtx * FAKE_CHARS_PER_TOKEN) : whole;
    return { route, model: body.model, body, prompt, promptTokens, kept: tokens(prompt), numCtx };
  };

  const handle = async (req: IncomingMessage, res: ServerResponse, body: any) => {
    const url = req.url ?? '';
    if (req.method === 'GET' && url === '/api/tags')
      return json(res, 200, {
        models: o.models.map((m) => ({
          name: `${m.name}:latest`,
          model: `${m.name}:latest`,
          modified_at: '2026-01-01T00:00:00Z',
          size: 4_920_753_328,
          digest: 'sha256:0000',
          details: {
            format: 'gguf',
            family: m.arch ?? 'llama',
            parameter_size: '8.0B',
            quantization_level: 'Q4_K_M',
          },
        })),
      });
    if (req.method === 'POST' && url === '/api/show') {
      const m = find(body?.model);
      if (!m) return json(res, 404, { error: `model '${body?.model}' not found` });
      const arch = m.arch ?? 'llama';
      return json(res, 200, {
        modelfile: `FROM ${m.name}`,
        parameters: 'stop "<|eot_id|>"',
        template: '{{ .Prompt }}',
        details: { format: 'gguf', family: arch, parameter_size: '8.0B', quantization_level: 'Q4_K_M' },
        model_info: {
          'general.architecture': arch,
          'general.parameter_count': 8_030_261_248,
          [`${arch}.context_length`]: m.context,
          [`${arch}.embedding_length`]: 4096,
          [`${arch}.rope.freq_base`]: 500000,
        },
        capabilities: ['completion', 'tools'],
      });
    }
    if (req.method === 'GET' && url === '/v1/models')
      return json(res, 200, {
        object: 'list',
        data: o.models.map((m) => ({ id: m.name, object: 'model', created: 1, owned_by: 'library' })),
      });
    if (req.method === 'POST' && url === '/api/chat') {
      if (!find(body?.model)) return notFound(res, body?.model);
      const seen = see('native', body, body.options?.num_ctx ?? o.defaultContext ?? 4096);
      chats.push(seen);
      return streamNative(res, seen, await o.brain(seen), body.options?.num_predict);
    }
    if (req.method === 'POST' && url === '/v1/chat/completions') {
      if (!find(body?.model))
        return json(res, 404, {
          error: { message: `model "${body?.model}" not found, try pulling it first`, type: 'api_error' },
        });
      const seen = see('openai', body, o.defaultContext ?? 4096);
      chats.push(seen);
      return streamOpenAI(res, seen, await o.brain(seen));
    }
    res.writeHead(404, { 'content-type': 'text/plain' }).end('404 page not found');
  };

  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => {
      raw += c;
    });
    req.on('end', () => {
      let body: any;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {}
      requests.push({ method: req.method ?? '', url: req.url ?? '', body });
      handle(req, res, body).catch((error) => {
        if (!res.headersSent) json(res, 500, { error: String(error) });
        else res.end();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    host: `127.0.0.1:${port}`,
    requests,
    chats,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const pieces = (text: string, size: number) => text.match(new RegExp(`[\\s\\S]{1,${size}}`, 'g')) ?? [];

async function streamNative(res: ServerResponse, seen: ChatSeen, r: FakeReply, numPredict?: number) {
  res.writeHead(200, { 'content-type': 'application/x-ndjson' });
  const line = (message: unknown, extra: object = {}) =>
    res.write(
      `${JSON.stringify({ model: seen.model, created_at: new Date().toISOString(), message, done: false, ...extra })}\n`,
    );
  let text = r.text ?? '';
  let reason = 'stop';
  if (numPredict !== undefined && tokens(text) > numPredict) {
    text = text.slice(0, numPredict * FAKE_CHARS_PER_TOKEN);
    reason = 'length';
  }
  for (const p of pieces(r.thinking ?? '', r.piece ?? 7))
    line({ role: 'assistant', content: '', thinking: p });
  if (r.firstPiece) {
    line({ role: 'assistant', content: r.firstPiece });
    await r.wait;
  }
  for (const p of pieces(text, r.piece ?? 7)) line({ role: 'assistant', content: p });
  if (r.calls?.length)
    line({
      role: 'assistant',
      content: '',
      tool_calls: r.calls.map((c) => ({ function: { name: c.name, arguments: c.args } })),
    });
  const out = (r.firstPiece ?? '') + text + (r.thinking ?? '') + JSON.stringify(r.calls ?? []);
  res.end(
    `${JSON.stringify({
      model: seen.model,
      created_at: new Date().toISOString(),
      message: { role: 'assistant', content: '' },
      done_reason: reason,
      done: true,
      total_duration: 182_242_375,
      load_duration: 41_295_167,
      prompt_eval_count: seen.kept,
      prompt_eval_duration: 24_573_166,
      eval_count: tokens(out),
      eval_duration: 115_959_084,
    })}\n`,
  );
}

function streamOpenAI(res: ServerResponse, seen: ChatSeen, r: FakeReply) {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const chunk = (delta: unknown, finish: string | null = null) =>
    `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: seen.model, system_fingerprint: 'fp_ollama', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  let out = chunk({ role: 'assistant', content: '' });
  for (const p of pieces(r.text ?? '', r.piece ?? 7)) out += chunk({ role: 'assistant', content: p });
  out += chunk({}, 'stop');
  out += `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: seen.model, choices: [], usage: { prompt_tokens: seen.kept, completion_tokens: tokens(r.text ?? ''), total_tokens: seen.kept + tokens(r.text ?? '') } })}\n\n`;
  res.end(`${out}data: [DONE]\n\n`);
}
