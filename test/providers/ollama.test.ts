import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { AbortedError, ConfigError } from '../../src/errors.js';
import { runTurn } from '../../src/loop/run-turn.js';
import { createOllamaProvider } from '../../src/providers/ollama.js';
import { createProvider } from '../../src/providers/registry.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import type { StreamEvent } from '../../src/types.js';
import { type FakeBrain, type FakeModel, startOllamaServer } from '../support/ollama-server.js';
import { testTools } from '../support/test-tools.js';

// The native Ollama provider against a loopback Ollama (test/support/ollama-server.ts): the requests it
// sends (num_ctx sized to each, format, tools) and what it makes of the NDJSON replies.

let server: Awaited<ReturnType<typeof startOllamaServer>> | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function ollama(brain: FakeBrain, models: FakeModel[] = [{ name: 'llama3.1', context: 131_072 }]) {
  server = await startOllamaServer({ models, brain });
  return { server, provider: createOllamaProvider({ baseUrl: server.url }) };
}

const chatBodies = () => server!.requests.filter((r) => r.url === '/api/chat').map((r) => r.body);

describe('ollama (native /api/chat)', () => {
  it('streams text and thinking, counts Ollama’s tokens, and asks a context that fits the request', async () => {
    const { provider } = await ollama(() => ({ thinking: 'Let me see.', text: 'Paris is the capital.' }));
    const events: StreamEvent[] = [];
    const reply = await provider.complete({
      model: 'llama3.1',
      system: 'Be terse.',
      messages: [{ role: 'user', content: 'Capital of France?' }],
      maxTokens: 1000,
      onEvent: (e) => events.push(e),
    });
    expect(reply).toMatchObject({
      provider: 'ollama',
      model: 'llama3.1',
      stopReason: 'stop',
      content: [{ type: 'text', text: 'Paris is the capital.' }],
    });
    expect(
      events
        .filter((e) => e.type === 'reasoning')
        .map((e) => (e as { delta: string }).delta)
        .join(''),
    ).toBe('Let me see.');
    expect(events.filter((e) => e.type === 'text').length).toBeGreaterThan(2);
    const [body] = chatBodies();
    expect(body).toMatchObject({
      model: 'llama3.1',
      stream: true,
      messages: [
        { role: 'system', content: 'Be terse.' },
        { role: 'user', content: 'Capital of France?' },
      ],
      options: { num_ctx: 2048, num_predict: 1000 },
    });
    expect(reply.usage).toEqual({
      input: server!.chats[0]!.kept,
      cacheRead: 0,
      cacheWrite: 0,
      output: 9,
      reasoning: 0,
    });
    expect(await provider.contextTokens!('llama3.1')).toBe(131_072);
    // The model's context was asked once, whatever the number of requests.
    expect(server!.requests.filter((r) => r.url === '/api/show')).toHaveLength(1);
  });

  it('a chat with tools: tool call → result → answer, on the native wire format', async () => {
    const { provider } = await ollama((seen) =>
      seen.body.messages.some((m: { role: string }) => m.role === 'tool')
        ? { text: '2 + 3 = 5.' }
        : { calls: [{ name: 'add', args: { a: 2, b: 3 } }] },
    );
    const t = testTools();
    const result = await runTurn([], 'Add 2 and 3.', {
      provider,
      model: 'llama3.1',
      registry: new ToolRegistry(t.tools),
      maxTurns: 4,
    });
    expect(t.runs).toEqual(['add']);
    expect(result.text).toBe('2 + 3 = 5.');
    const [first, second] = chatBodies();
    expect(first.tools.map((x: any) => x.function.name)).toEqual(['add', 'fail', 'delete_everything']);
    expect(first.tools[0]).toMatchObject({ type: 'function', function: { parameters: { type: 'object' } } });
    expect(second.messages).toEqual([
      { role: 'user', content: 'Add 2 and 3.' },
      {
        role: 'assistant',
        content: '',
        tool_calls: [{ function: { name: 'add', arguments: { a: 2, b: 3 } } }],
      },
      { role: 'tool', tool_name: 'add', content: '5' },
    ]);
  });

  it("num_ctx: the prompt and its output rounded up, capped by the model's context and AGENT_NUM_CTX, never lowered", async () => {
    server = await startOllamaServer({
      models: [{ name: 'small', context: 8192 }],
      brain: () => ({ text: 'ok' }),
    });
    const provider = createOllamaProvider({ baseUrl: server.url });
    const ask = (chars: number, maxTokens?: number) =>
      provider.complete({
        model: 'small',
        messages: [{ role: 'user', content: 'w '.repeat(chars / 2) }],
        maxTokens,
      });
    await ask(100, 500);
    await ask(20_000, 2000);
    await ask(100, 500);
    await ask(100_000, 2000);
    expect(chatBodies().map((b) => b.options.num_ctx)).toEqual([2048, 8192, 8192, 8192]);
    // The last prompt is longer than the model's context: the server cut its start, and counted what it kept.
    expect(server.chats[3]!.kept).toBe(8192);

    const capped = createOllamaProvider({ baseUrl: server.url, numCtx: 4096 });
    expect(await capped.contextTokens!('small')).toBe(4096);
    await capped.complete({ model: 'small', messages: [{ role: 'user', content: 'w '.repeat(20_000) }] });
    expect(chatBodies().at(-1).options).toEqual({ num_ctx: 4096 });
    expect(await createOllamaProvider({ baseUrl: server.url, numCtx: 65_536 }).contextTokens!('small')).toBe(
      8192,
    );
  });

  it("a chat prompt longer than the model's context: cut by the server, and said", async () => {
    const { provider } = await ollama(() => ({ text: 'ok' }), [{ name: 'small', context: 4096 }]);
    const notices: string[] = [];
    await runTurn([], `Summarise: ${'the quarterly records are kept for seven years. '.repeat(600)}`, {
      provider,
      model: 'small',
      registry: new ToolRegistry([]),
      maxTurns: 1,
      onEvent: (e) => (e.type === 'notice' ? notices.push(e.message) : undefined),
    });
    expect(server!.chats[0]).toMatchObject({ numCtx: 4096, kept: 4096 });
    expect(notices).toEqual([
      expect.stringMatching(
        /^The server cut this prompt: it read 4,096 of about [\d,]+ tokens, so the model did not see all of it \(the start is lost\)\. To fix: /,
      ),
    ]);
  });

  it('sends a JSON schema as format; tool_choice none leaves the tools out', async () => {
    const { provider } = await ollama(() => ({ text: '{"facts": []}' }));
    const schema = { type: 'object', properties: { facts: { type: 'array' } } };
    await provider.complete({
      model: 'llama3.1',
      messages: [{ role: 'user', content: 'x' }],
      jsonSchema: schema,
    });
    await provider.complete({
      model: 'llama3.1',
      messages: [{ role: 'user', content: 'x' }],
      tools: [{ name: 'add', description: 'Adds.', parameters: { type: 'object' } }],
      toolChoice: 'none',
    });
    const [withSchema, noTools] = chatBodies();
    expect(withSchema.format).toEqual(schema);
    expect(noTools.tools).toBeUndefined();
  });

  it('a reply cut at num_predict stops for length', async () => {
    const { provider } = await ollama(() => ({ text: 'word '.repeat(2000) }));
    const reply = await provider.complete({
      model: 'llama3.1',
      messages: [{ role: 'user', content: 'x' }],
      maxTokens: 300,
    });
    expect(reply.stopReason).toBe('length');
    expect(chatBodies()[0].options.num_predict).toBe(300);
  });

  it('a missing model says how to pull it; a server that is not running says so, with its address', async () => {
    const { provider } = await ollama(() => ({ text: 'x' }));
    await expect(
      provider.complete({ model: 'qwen3', messages: [{ role: 'user', content: 'x' }] }),
    ).rejects.toThrow(
      'Ollama has no model "qwen3" (404): model "qwen3" not found, try pulling it first. Pull it with: ollama pull qwen3',
    );
    const free = await freePort();
    const down = createOllamaProvider({ baseUrl: `http://127.0.0.1:${free}` });
    await expect(
      down.complete({ model: 'llama3.1', messages: [{ role: 'user', content: 'x' }] }),
    ).rejects.toThrow(
      `Ollama is not running at http://127.0.0.1:${free} (connection refused). Start it (\`ollama serve\`, or the Ollama app), or set OLLAMA_HOST to where it runs.`,
    );
    expect(await down.contextTokens!('llama3.1')).toBeUndefined();
  });

  it('an error line in the stream is a failure, never a short answer; a cancel is a cancel', async () => {
    const { provider } = await ollama(() => ({ text: 'x' }));
    // A stream that says an error after its first piece, as Ollama does when the runner fails.
    const { createServer: http } = await import('node:http');
    const broken = http((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      res.end(
        '{"model":"m","message":{"role":"assistant","content":"Hal"},"done":false}\n{"error":"an error was encountered while running the model: unexpected EOF"}\n',
      );
    });
    await new Promise<void>((r) => broken.listen(0, '127.0.0.1', r));
    const port = (broken.address() as { port: number }).port;
    const p = createOllamaProvider({ baseUrl: `http://127.0.0.1:${port}`, maxRetries: 0 });
    await expect(p.complete({ model: 'm', messages: [{ role: 'user', content: 'x' }] })).rejects.toThrow(
      'Ollama failed while answering: an error was encountered while running the model: unexpected EOF',
    );
    broken.close();
    const controller = new AbortController();
    controller.abort();
    await expect(
      provider.complete({
        model: 'llama3.1',
        messages: [{ role: 'user', content: 'x' }],
        signal: controller.signal,
      }),
    ).rejects.toBeInstanceOf(AbortedError);
  });

  it('--provider ollama speaks the native API at OLLAMA_HOST, a copied /v1 dropped; AGENT_NUM_CTX is checked', async () => {
    const { server: s } = await ollama(() => ({ text: 'hi' }));
    const provider = await createProvider('ollama', {
      OLLAMA_HOST: `${s.url}/v1`,
      OPENAI_BASE_URL: 'http://elsewhere/v1',
    });
    expect(provider.name).toBe('ollama');
    await provider.complete({ model: 'llama3.1', messages: [{ role: 'user', content: 'x' }] });
    expect(s.requests.map((r) => r.url)).toEqual(['/api/show', '/api/chat']);
    await expect(createProvider('ollama', { AGENT_NUM_CTX: 'lots' })).rejects.toBeInstanceOf(ConfigError);
  });
});

/** A port nothing listens on. */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}
