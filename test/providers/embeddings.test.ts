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
});
