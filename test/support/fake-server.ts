import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

export interface FakeResponse {
  status?: number;
  headers?: Record<string, string>;
  body: string;
  /** Send the body, then keep the connection open without ending it (a stalled stream). */
  hang?: boolean;
}

export type Responder = FakeResponse | ((req: RecordedRequest) => FakeResponse | Promise<FakeResponse>);

/** What a compatible provider asks of a server's context (src/providers/openai-chat.ts): not a model call. */
const LOOKUP = /^\/(?:v1\/models|props)$/;

/**
 * A loopback HTTP server that answers from a queue and records every request it was sent. Context
 * look-ups (GET /v1/models, /props) are recorded apart, in `lookups`, and never take a queued reply: the
 * fallback answers them if it can, else they get a 404, as from a server that has no such route.
 */
export async function startFakeServer(queue: Responder[] = [], fallback?: Responder) {
  const requests: RecordedRequest[] = [];
  const lookups: RecordedRequest[] = [];
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => {
      raw += c;
    });
    req.on('end', async () => {
      let body: unknown = raw;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {}
      const recorded = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
      if (recorded.method === 'GET' && LOOKUP.test(recorded.url)) {
        lookups.push(recorded);
        const found = await Promise.resolve()
          .then(() => (typeof fallback === 'function' ? fallback(recorded) : undefined))
          .catch(() => undefined);
        const r = found ?? { status: 404, headers: { 'content-type': 'text/plain' }, body: 'Not Found' };
        res.writeHead(r.status ?? 200, r.headers ?? { 'content-type': 'application/json' }).end(r.body);
        return;
      }
      requests.push(recorded);
      const next = queue.shift() ?? fallback;
      if (!next) {
        res
          .writeHead(500, { 'content-type': 'application/json' })
          .end('{"error":{"message":"fake server: queue empty"}}');
        return;
      }
      const r = typeof next === 'function' ? await next(recorded) : next;
      res.writeHead(r.status ?? 200, r.headers ?? { 'content-type': 'text/event-stream' });
      if (r.hang) res.write(r.body);
      else res.end(r.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    lookups,
    queue,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Server-sent events from a fixture: blank-line separated, with the final separator ensured. */
export const sse = (text: string): FakeResponse => ({
  headers: { 'content-type': 'text/event-stream' },
  body: text.endsWith('\n\n') ? text : `${text.trimEnd()}\n\n`,
});

export const json = (status: number, value: unknown, headers: Record<string, string> = {}): FakeResponse => ({
  status,
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(value),
});

/**
 * process.env with every provider and agent variable cleared, and both SDKs pointed at `url` with test
 * keys (Anthropic at the root, OpenAI and compatible servers at /v1). The caller restores process.env.
 */
export function pointProvidersAt(url: string): void {
  for (const k of Object.keys(process.env))
    if (/^(ANTHROPIC_|OPENAI_|AGENT_|OLLAMA_)/.test(k)) delete process.env[k];
  process.env.ANTHROPIC_API_KEY = 'sk-ant-test';
  process.env.ANTHROPIC_BASE_URL = url;
  process.env.OPENAI_API_KEY = 'sk-test';
  process.env.OPENAI_BASE_URL = `${url}/v1`;
}
