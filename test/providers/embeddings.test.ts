import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmbedder, parseEmbeddingsSpec } from '../../src/providers/embeddings.js';
import { type EmbeddingsServer, fakeVector, startEmbeddingsServer } from '../support/embeddings-server.js';

// The wire formats of /v1/embeddings: OpenAI is asked for base64 float32s (what its SDK asks by default,
// a quarter of the JSON's size and read without parsing numbers), every other server for JSON numbers.

let server: EmbeddingsServer;
beforeAll(async () => {
  server = await startEmbeddingsServer();
});
afterAll(async () => server.close());

const TEXTS = ['Can I ride my bike to work?', 'The cycle-to-work scheme pays a commuting allowance.'];

describe('embeddings on the wire', () => {
  it('reads OpenAI’s base64 vectors as the numbers the model made', async () => {
    server.requests.length = 0;
    const embedder = await createEmbedder(parseEmbeddingsSpec('openai'), {
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: server.baseURL,
    });
    const { vectors } = await embedder.embed(TEXTS);
    expect(server.requests[0]).toMatchObject({ encoding: 'base64', dimensions: 512, count: 2 });
    expect(vectors).toHaveLength(2);
    for (const [i, v] of vectors.entries()) {
      const want = fakeVector(TEXTS[i]!, 512);
      expect(v).toHaveLength(512);
      expect(Array.from(v)).toEqual(Array.from(Float32Array.from(want)));
    }
  });

  it('asks any other server for JSON numbers', async () => {
    server.requests.length = 0;
    const embedder = await createEmbedder(parseEmbeddingsSpec('openai-compatible:bge-m3'), {
      AGENT_EMBEDDINGS_BASE_URL: server.baseURL,
    });
    const { vectors } = await embedder.embed(TEXTS);
    expect(server.requests[0]).toMatchObject({ encoding: 'float', count: 2 });
    expect(vectors[1]).toEqual(fakeVector(TEXTS[1]!, 64));
  });

  it('refuses a vector holding a NaN or an infinity, as a broken reply', async () => {
    const embedder = await createEmbedder(parseEmbeddingsSpec('openai'), {
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: server.baseURL,
    });
    try {
      for (const fault of ['nan', 'infinity'] as const) {
        server.fault = fault;
        await expect(embedder.embed(['x', 'y'])).rejects.toThrow(/not numbers/);
      }
    } finally {
      server.fault = 'none';
    }
  });

  it('refuses a base64 vector that is not float32s, as a broken reply', async () => {
    const embedder = await createEmbedder(parseEmbeddingsSpec('openai'), {
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: server.baseURL,
    });
    server.fault = 'torn';
    try {
      await expect(embedder.embed(['x'])).rejects.toThrow(/not float32 numbers/);
    } finally {
      server.fault = 'none';
    }
  });

  it('splits its requests to what a server takes, as that server says, and keeps to it', async () => {
    const texts = Array.from({ length: 8 }, (_, i) => `passage ${i} about the cycle scheme`);
    const servers = [
      ['openai-compatible:bge-m3', { AGENT_EMBEDDINGS_BASE_URL: server.baseURL }],
      ['ollama:nomic-embed-text', { OLLAMA_HOST: server.url }],
    ] as const;
    try {
      server.maxBatch = 3;
      for (const [spec, env] of servers) {
        server.requests.length = 0;
        const embedder = await createEmbedder(parseEmbeddingsSpec(spec), env);
        const first = await embedder.embed(texts);
        // Refused whole (TEI's 422), then sent as the server said: every text answered, in order.
        expect(server.requests.map((r) => r.count)).toEqual([8, 3, 3, 2]);
        expect(first.vectors.map((v) => Array.from(v))).toEqual(texts.map((t) => fakeVector(t, 64)));
        server.requests.length = 0;
        await embedder.embed(texts.slice(0, 5));
        expect(server.requests.map((r) => r.count)).toEqual([3, 2]);
      }
      // A refusal that names no number (a proxy's 413): halves, down to what is taken.
      server.requests.length = 0;
      server.maxBatch = 2;
      server.refusesAs = 'proxy';
      const embedder = await createEmbedder(parseEmbeddingsSpec('openai-compatible:bge-m3'), {
        AGENT_EMBEDDINGS_BASE_URL: server.baseURL,
      });
      expect((await embedder.embed(texts)).vectors).toHaveLength(8);
      expect(server.requests.map((r) => r.count)).toEqual([8, 4, 2, 2, 2, 2]);
      // One text refused is an error, said as the server said it.
      server.maxBatch = 0;
      server.refusesAs = 'tei';
      await expect(embedder.embed(['one'])).rejects.toThrow(/422.*maximum allowed batch size 0/);
    } finally {
      server.maxBatch = Number.POSITIVE_INFINITY;
      server.refusesAs = 'tei';
    }
  });

  it('embeds a text a server finds too long by the first part it takes, and keeps its batch size', async () => {
    const long = `${'The cycle-to-work scheme pays a commuting allowance. '.repeat(60)}`;
    const texts = ['Can I ride my bike to work?', long, 'Holiday leave is 25 days.'];
    try {
      server.maxChars = 1200;
      server.requests.length = 0;
      const embedder = await createEmbedder(parseEmbeddingsSpec('openai-compatible:bge-small'), {
        AGENT_EMBEDDINGS_BASE_URL: server.baseURL,
      });
      const { vectors } = await embedder.embed(texts);
      expect(vectors).toHaveLength(3);
      // The long one stands for itself by its first part the server takes (halved until taken).
      let part = long;
      while (part.length > 1200) part = part.slice(0, Math.ceil(part.length / 2));
      expect(Array.from(vectors[1]!)).toEqual(fakeVector(part, 64));
      expect(Array.from(vectors[2]!)).toEqual(fakeVector(texts[2]!, 64));
      // A refusal of one text's length is not one of the batch's size: the next batch goes whole.
      server.requests.length = 0;
      await embedder.embed([texts[0]!, texts[2]!, 'a third short text']);
      expect(server.requests.map((r) => r.count)).toEqual([3]);
    } finally {
      server.maxChars = Number.POSITIVE_INFINITY;
    }
  });
});
