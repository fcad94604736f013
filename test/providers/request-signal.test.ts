import { getEventListeners } from 'node:events';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEmbedder, parseEmbeddingsSpec } from '../../src/providers/embeddings.js';
import { createProvider } from '../../src/providers/registry.js';
import type { ProviderName } from '../../src/types.js';
import { type EmbeddingsServer, startEmbeddingsServer } from '../support/embeddings-server.js';
import { pointProvidersAt, sse, startFakeServer } from '../support/fake-server.js';
import { startOllamaServer } from '../support/ollama-server.js';
import { anthropicSse, chatSse } from '../support/sse-builders.js';

// One signal for many calls, as a research run gives its signal to every model and embedding call:
// through the real SDK clients (and fetch, for Ollama), the signal holds one listener at most however
// many calls were made or are in flight (the SDKs never take theirs off: eleven calls made Node warn of
// a leak), and aborting it still stops a call.

let server: Awaited<ReturnType<typeof startFakeServer>>;
let embeddings: EmbeddingsServer;
const savedEnv = { ...process.env };
const warnings: string[] = [];
const onWarning = (w: Error) => warnings.push(w.name);
beforeEach(async () => {
  server = await startFakeServer();
  embeddings = await startEmbeddingsServer();
  pointProvidersAt(server.url);
  warnings.length = 0;
  process.on('warning', onWarning);
});
afterEach(async () => {
  process.off('warning', onWarning);
  process.env = { ...savedEnv };
  await server.close();
  await embeddings.close();
});

const CALLS = 15;

describe('one signal for many calls', () => {
  for (const [name, body] of [
    ['anthropic', anthropicSse({ text: 'Paris.' })],
    ['openai-compatible', chatSse({ text: 'Paris.' })],
  ] as [ProviderName, string][]) {
    it(`${name}: leaves one listener at most on the caller's signal`, async () => {
      const provider = await createProvider(name);
      const controller = new AbortController();
      for (let i = 0; i < CALLS; i++) {
        server.queue.push(sse(body));
        const reply = await provider.complete({
          model: 'm',
          system: 'Answer.',
          messages: [{ role: 'user', content: 'Capital of France?' }],
          signal: controller.signal,
        });
        expect(reply.content).toEqual([{ type: 'text', text: 'Paris.' }]);
      }
      expect(getEventListeners(controller.signal, 'abort').length).toBeLessThanOrEqual(1);
      expect(warnings).not.toContain('MaxListenersExceededWarning');
    });
  }

  it("ollama (native): leaves one listener at most on the caller's signal", async () => {
    const ollama = await startOllamaServer({
      models: [{ name: 'm', context: 8192 }],
      brain: () => ({ text: 'Paris.' }),
    });
    const provider = await createProvider('ollama', { OLLAMA_HOST: ollama.host });
    const controller = new AbortController();
    await Promise.all(
      Array.from({ length: CALLS }, () =>
        provider.complete({
          model: 'm',
          messages: [{ role: 'user', content: 'Capital?' }],
          signal: controller.signal,
        }),
      ),
    );
    expect(getEventListeners(controller.signal, 'abort').length).toBeLessThanOrEqual(1);
    expect(warnings).not.toContain('MaxListenersExceededWarning');
    await ollama.close();
  });

  for (const spec of ['openai-compatible:fake-embed', 'ollama:fake-embed']) {
    it(`embeddings (${spec.split(':')[0]}): leaves one listener at most on the caller’s signal, with many requests at once too, and an abort still stops one`, async () => {
      const embedder = await createEmbedder(parseEmbeddingsSpec(spec), {
        AGENT_EMBEDDINGS_BASE_URL: spec.startsWith('ollama') ? embeddings.url : embeddings.baseURL,
      });
      const controller = new AbortController();
      await Promise.all(
        Array.from({ length: CALLS }, (_, i) => embedder.embed([`text ${i}`], controller.signal)),
      );
      expect(getEventListeners(controller.signal, 'abort').length).toBeLessThanOrEqual(1);
      embeddings.fault = 'slow';
      const pending = embedder.embed(['slow text'], controller.signal);
      setTimeout(() => controller.abort(), 100);
      await expect(pending).rejects.toThrow();
      expect(embeddings.requests.length).toBeGreaterThan(CALLS);
      expect(warnings).not.toContain('MaxListenersExceededWarning');
    });
  }
});
