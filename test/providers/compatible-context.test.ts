import { describe, expect, it } from 'vitest';
import { ProviderError } from '../../src/errors.js';
import { contextRefusal } from '../../src/providers/context.js';
import { createProvider } from '../../src/providers/registry.js';
import { json, startFakeServer } from '../support/fake-server.js';
import { startVllmServer } from '../support/vllm-server.js';

// OpenAI-compatible servers: the context where the server says it (vLLM, llama.cpp) or the user does, and
// a refusal over it that keeps the server's own words (the SDK alone reports "400 status code (no body)").

const ask = { model: 'qwen', messages: [{ role: 'user' as const, content: 'Hello there.' }] };

describe('openai-compatible servers', () => {
  it("keeps vLLM's refusal message, which says the context, and reads the context from /v1/models", async () => {
    const vllm = await startVllmServer({ model: 'qwen', maxModelLen: 8192, answer: () => 'hi' });
    const provider = await createProvider('openai-compatible', { OPENAI_BASE_URL: `${vllm.url}/v1` });
    const error = await provider.complete({ ...ask, maxTokens: 16_384 }).catch((e) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.message).toMatch(
      /^the OpenAI-compatible server refused the request \(400\): This model's maximum context length is 8192 tokens\. However, you requested 16\d{3} tokens \(\d+ in the messages, 16384 in the completion\)/,
    );
    expect(contextRefusal(error)).toMatchObject({ maxTokens: 8192 });
    expect(await provider.contextTokens!('qwen')).toBe(8192);
    // Asked once per model.
    await provider.contextTokens!('qwen');
    expect(vllm.lookups.filter((r) => r.url === '/v1/models')).toHaveLength(1);
    await vllm.close();
  });

  it("reads llama.cpp's n_ctx from /props; AGENT_CONTEXT_TOKENS needs no question; unknown otherwise", async () => {
    const llama = await startFakeServer([], (req) => {
      if (req.url === '/v1/models')
        return json(200, { object: 'list', data: [{ id: 'model.gguf', object: 'model' }] });
      if (req.url === '/props')
        return json(200, { default_generation_settings: { n_ctx: 16_384 }, total_slots: 1 });
      return json(400, {
        error: {
          code: 400,
          message: 'the request exceeds the available context size, try increasing it',
          type: 'exceed_context_size_error',
          n_prompt_tokens: 20_000,
          n_ctx: 16_384,
        },
      });
    });
    const provider = await createProvider('openai-compatible', { OPENAI_BASE_URL: `${llama.url}/v1` });
    expect(await provider.contextTokens!('any')).toBe(16_384);
    const error = await provider.complete(ask).catch((e) => e);
    expect(contextRefusal(error)).toEqual({ maxTokens: 16_384, promptTokens: 20_000 });

    const told = await createProvider('openai-compatible', {
      OPENAI_BASE_URL: `${llama.url}/v1`,
      AGENT_CONTEXT_TOKENS: '32768',
    });
    const before = llama.lookups.length;
    expect(await told.contextTokens!('other')).toBe(32_768);
    expect(llama.lookups.length).toBe(before);
    await llama.close();

    const silent = await startFakeServer([], () => json(404, { error: 'not here' }));
    const unknown = await createProvider('openai-compatible', { OPENAI_BASE_URL: `${silent.url}/v1` });
    expect(await unknown.contextTokens!('x')).toBeUndefined();
    await silent.close();
  });
});
