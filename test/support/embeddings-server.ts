import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

// A loopback embeddings server for tests, speaking OpenAI's /v1/embeddings and Ollama's /api/embed. Its
// model is a deterministic bag of words: each word (cut to a crude stem, mapped through a small synonym
// table so that "bike" and "cycle" are one concept) is hashed to a signed dimension, and the counts make
// the vector. Real enough for hybrid search to find a paraphrase keyword search cannot; faults on demand.

export type Fault =
  | 'none'
  /** The connection is closed with no answer. */
  | 'down'
  /** The answer comes after `slowMs`. */
  | 'slow'
  /** Each request answers vectors one dimension longer than the last. */
  | 'dims'
  /** The answer says another model made the vectors. */
  | 'model'
  /** 500 for every request. */
  | 'error'
  /** One 429 with Retry-After: 0, then answers. */
  | 'rate-once'
  /** base64 vectors cut short of a whole float32. */
  | 'torn'
  /** base64 vectors holding a NaN, or an infinity, among their numbers. */
  | 'nan'
  | 'infinity';

/** Words that mean one thing to this model. */
const SYNONYMS: Record<string, string> = {
  bike: 'cycle',
  bicycle: 'cycle',
  cycling: 'cycle',
  ride: 'cycle',
  commute: 'commut',
  commuting: 'commut',
  work: 'commut',
  claim: 'allowance',
  reimburse: 'allowance',
  reimbursement: 'allowance',
  refund: 'allowance',
  money: 'allowance',
  laptop: 'computer',
  notebook: 'computer',
  pc: 'computer',
  holiday: 'vacation',
  leave: 'vacation',
  pto: 'vacation',
};

const STOP = new Set(
  'a an and are as at be but by can could do does for from has have how i if in is it its may me my of on or our should so some something than that the their them then there these this to was we what when where which who why will with would you your'.split(
    ' ',
  ),
);

const stem = (w: string) => w.replace(/(ing|ed|es|s)$/, '') || w;

export function concepts(text: string): string[] {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return words.filter((w) => !STOP.has(w)).map((w) => SYNONYMS[w] ?? SYNONYMS[stem(w)] ?? stem(w));
}

/** The fake model's vector for a text: `dims` long, not normalised (the client must normalise). */
export function fakeVector(text: string, dims: number): number[] {
  const v: number[] = Array.from({ length: dims }, () => 0);
  for (const c of concepts(text)) {
    const h = createHash('sha1').update(c).digest();
    v[h.readUInt32BE(0) % dims]! += h[4]! & 1 ? 1 : -1;
  }
  // Never the zero vector: a text of stopwords still has a direction.
  if (!v.some((x) => x !== 0)) v[0] = 0.001;
  return v.map((x) => x * 3);
}

export interface EmbeddingsServer {
  url: string;
  /** OpenAI-style base URL: `${url}/v1`. */
  baseURL: string;
  fault: Fault;
  slowMs: number;
  /**
   * Texts a request may hold, as text-embeddings-inference's --max-client-batch-size (32 by default):
   * more is refused as it refuses them (422).
   */
  maxBatch: number;
  /** How more is refused: as TEI (422, naming the number), or as a proxy in front (413, naming none). */
  refusesAs: 'tei' | 'proxy';
  /** Characters a text may have, as a 512-token model's: a longer one is refused as TEI refuses it (413). */
  maxChars: number;
  dims: number;
  /** Texts embedded, per model, in order. */
  texts: Map<string, string[]>;
  requests: { path: string; model: string; count: number; dimensions?: number; encoding?: string }[];
  close(): Promise<void>;
}

export async function startEmbeddingsServer(options: { dims?: number } = {}): Promise<EmbeddingsServer> {
  let dimsNow = 0;
  const state: EmbeddingsServer = {
    url: '',
    baseURL: '',
    fault: 'none',
    slowMs: 2000,
    maxBatch: Number.POSITIVE_INFINITY,
    refusesAs: 'tei',
    maxChars: Number.POSITIVE_INFINITY,
    dims: options.dims ?? 64,
    texts: new Map(),
    requests: [],
    close: async () => {},
  };
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => {
      raw += c;
    });
    req.on('end', async () => {
      const body = JSON.parse(raw || '{}') as {
        model?: string;
        input?: string | string[];
        dimensions?: number;
        encoding_format?: string;
      };
      const path = (req.url ?? '').replace(/\?.*$/, '');
      const input = typeof body.input === 'string' ? [body.input] : (body.input ?? []);
      const model = body.model ?? '';
      state.requests.push({
        path,
        model,
        count: input.length,
        dimensions: body.dimensions,
        encoding: body.encoding_format,
      });
      const send = (status: number, value: unknown, headers: Record<string, string> = {}) =>
        res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(value));
      if (state.fault === 'down') return req.socket.destroy();
      if (state.fault === 'error') return send(500, { error: { message: 'fake embeddings: broken' } });
      if (state.fault === 'rate-once') {
        state.fault = 'none';
        return send(429, { error: { message: 'slow down' } }, { 'retry-after': '0' });
      }
      if (state.fault === 'slow') await new Promise((r) => setTimeout(r, state.slowMs));
      if (path !== '/v1/embeddings' && path !== '/api/embed') return send(404, { error: 'not found' });
      const longest = Math.max(0, ...input.map((t) => t.length));
      if (longest > state.maxChars)
        return send(413, {
          error: `\`inputs\` must have less than ${state.maxChars} tokens. Given: ${longest}`,
          error_type: 'Validation',
        });
      if (input.length > state.maxBatch && state.refusesAs === 'proxy')
        return send(413, { error: { message: 'Request Entity Too Large' } });
      if (input.length > state.maxBatch)
        return send(422, {
          error: `batch size ${input.length} > maximum allowed batch size ${state.maxBatch}`,
          error_type: 'Validation',
        });
      const dims = state.fault === 'dims' ? state.dims + ++dimsNow : (body.dimensions ?? state.dims);
      state.texts.set(model, [...(state.texts.get(model) ?? []), ...input]);
      const vectors = input.map((t) => fakeVector(t, dims));
      const odd = { nan: Number.NaN, infinity: Number.NEGATIVE_INFINITY }[state.fault as string];
      if (odd !== undefined) for (const v of vectors) v[v.length - 1] = odd;
      const tokens = input.reduce((n, t) => n + concepts(t).length + 1, 0);
      if (path === '/api/embed') return send(200, { model, embeddings: vectors, prompt_eval_count: tokens });
      send(200, {
        object: 'list',
        model: state.fault === 'model' ? 'some-other-model' : model,
        // As OpenAI does: base64 of little-endian float32s when asked, else JSON numbers.
        data: vectors.map((v, index) => ({
          object: 'embedding',
          index,
          embedding:
            body.encoding_format === 'base64'
              ? Buffer.from(Float32Array.from(v).buffer)
                  .subarray(0, state.fault === 'torn' ? 5 : undefined)
                  .toString('base64')
              : v,
        })),
        usage: { prompt_tokens: tokens, total_tokens: tokens },
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  state.url = `http://127.0.0.1:${port}`;
  state.baseURL = `${state.url}/v1`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}
