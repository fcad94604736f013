#!/usr/bin/env node
// The speed bench's embedding model as a server: an OpenAI-compatible `/v1/embeddings` on loopback
// (wire format as bench/support/wink-embedder.mjs describes) whose vector of a text is a hashed bag of
// its words over dense noise (every component non-zero, as a real model's). It says nothing about
// meaning; it stands for a model whose time is the server's, so that a bench can time the client's side.
// `dimensions` asks for that many components (text-embedding-3 style); JSON numbers or base64.
// Stand-alone (a child process of the bench): node bench/support/hashed-embedder.mjs [--dims N]
// prints its base URL (…/v1) and serves until stopped.
import { createServer } from 'node:http';

/** FNV-1a: where a word goes among the dimensions, and its sign. */
export const hash = (w) => {
  let h = 2166136261;
  for (let i = 0; i < w.length; i++) h = Math.imul(h ^ w.charCodeAt(i), 16777619) >>> 0;
  return h;
};

/** The text's vector of `dims` components, into a new array of `Kind` (Array or Float32Array). */
export function hashedVector(text, dims, Kind = Float32Array) {
  const v = Kind === Array ? new Array(dims).fill(0) : new Kind(dims);
  let x = hash(text) | 1;
  for (let i = 0; i < dims; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    v[i] = x / 2 ** 33;
  }
  for (const w of text.toLowerCase().match(/[a-z]+/g) ?? []) {
    const h = hash(w);
    v[h % dims] += h & 0x80000000 ? 1 : -1;
    v[(h >>> 11) % dims] += 0.5;
  }
  return v;
}

export async function startHashedEmbedder({ dims = 1536, port = 0 } = {}) {
  const server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (d) => {
      raw += d;
    });
    req.on('end', () => {
      const body = JSON.parse(raw);
      const inputs = typeof body.input === 'string' ? [body.input] : body.input;
      const n = body.dimensions ?? dims;
      let tokens = 0;
      const data = inputs.map((text, index) => {
        tokens += Math.ceil(text.length / 4);
        const v = hashedVector(text, n);
        const embedding =
          body.encoding_format === 'base64' ? Buffer.from(v.buffer).toString('base64') : Array.from(v);
        return { object: 'embedding', index, embedding };
      });
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          object: 'list',
          data,
          model: body.model,
          usage: { prompt_tokens: tokens, total_tokens: tokens },
        }),
      );
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}/v1`, close: () => server.close() };
}

if (process.argv[1] && new URL(import.meta.url).pathname === process.argv[1]) {
  const i = process.argv.indexOf('--dims');
  const { url } = await startHashedEmbedder({ dims: i > 0 ? Number(process.argv[i + 1]) : 1536 });
  console.log(url);
}
