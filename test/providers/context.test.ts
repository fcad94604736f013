import { describe, expect, it } from 'vitest';
import { ConfigError, ProviderError } from '../../src/errors.js';
import {
  contextRefusal,
  contextToAsk,
  promptTokens,
  promptWasCut,
  textTokens,
  tokensSetting,
} from '../../src/providers/context.js';
import { ollamaBaseUrl } from '../../src/providers/ollama-host.js';
import { vllmRefusal } from '../support/vllm-server.js';

describe('token estimates', () => {
  it('English prose at 3.5 characters a token; numbers and punctuation denser; CJK a token each', () => {
    expect(textTokens('a'.repeat(350))).toBe(100);
    expect(textTokens('1234567890')).toBe(5);
    expect(textTokens('退款上限')).toBe(4);
    expect(textTokens('😀')).toBe(1);
    // A real tokenizer gives about 4.2 characters a token for this: the estimate is on the high side.
    const prose =
      'Refunds over two hundred dollars need the approval of a team lead before they are paid out. ';
    expect(textTokens(prose.repeat(10))).toBeGreaterThan((prose.length * 10) / 4.2);
  });

  it('a request counts its system prompt, messages, tool calls and tools', () => {
    const bare = promptTokens({ messages: [{ role: 'user', content: 'hi' }] });
    const more = promptTokens({
      system: 'x'.repeat(35),
      messages: [{ role: 'user', content: 'hi' }],
      tools: [{ name: 'add', description: 'adds', parameters: { type: 'object' } }],
    });
    expect(more).toBeGreaterThan(bare + 10);
  });
});

describe('contextToAsk', () => {
  it('prompt and output rounded up to 2,048, capped, never below what was asked before', () => {
    expect(contextToAsk(100, 1000)).toBe(2048);
    expect(contextToAsk(3000, 4096)).toBe(8192);
    expect(contextToAsk(100_000, 4096, 32_768)).toBe(32_768);
    expect(contextToAsk(100, 1000, 131_072, 16_384)).toBe(16_384);
  });
});

describe('promptWasCut', () => {
  it('only a prompt count far below the estimate of a prompt larger than the context', () => {
    expect(promptWasCut({ estimated: 10_000, read: 4096, window: 4096 })).toBe(true);
    expect(promptWasCut({ estimated: 10_000, read: 4096 })).toBe(true);
    // An estimate on the high side by a fifth is not a cut.
    expect(promptWasCut({ estimated: 10_000, read: 8300, window: 4096 })).toBe(false);
    // A prompt that fitted the context was not cut, whatever the count; no count proves nothing.
    expect(promptWasCut({ estimated: 10_000, read: 100, window: 32_768 })).toBe(false);
    expect(promptWasCut({ estimated: 10_000, read: 0 })).toBe(false);
    expect(promptWasCut({ estimated: 1500, read: 100 })).toBe(false);
  });

  it('a known context that the prompt filled, the prompt estimated larger: cut, even by a little', () => {
    expect(promptWasCut({ estimated: 9000, read: 8192, window: 8192 })).toBe(true);
    expect(promptWasCut({ estimated: 9000, read: 7000, window: 8192 })).toBe(false);
    expect(promptWasCut({ estimated: 8000, read: 8100, window: 8192 })).toBe(false);
    // Unknown context: only a count far below the estimate says it.
    expect(promptWasCut({ estimated: 9000, read: 8192 })).toBe(false);
  });
});

describe('contextRefusal', () => {
  it("reads vLLM's refusal (old and new wording), llama.cpp's and OpenAI's", () => {
    const vllm = new ProviderError(
      `x refused the request (400): ${vllmRefusal(8192, 1000, 8000).message}`,
      400,
    );
    expect(contextRefusal(vllm)).toEqual({ maxTokens: 8192, promptTokens: 1000 });
    const newer = new ProviderError(
      "refused (400): 'max_tokens' or 'max_completion_tokens' is too large: 8000. This model's maximum context length is 8192 tokens and your request has 1,000 input tokens (8000 > 8192 - 1000).",
      400,
    );
    expect(contextRefusal(newer)).toEqual({ maxTokens: 8192, promptTokens: 1000 });
    const llama = new ProviderError(
      'refused (400): the request exceeds the available context size, try increasing it (n_ctx 4096, n_prompt_tokens 5000)',
      400,
    );
    expect(contextRefusal(llama)).toEqual({ maxTokens: 4096, promptTokens: 5000 });
    expect(contextRefusal(new ProviderError('rate limited (429)', 429))).toBeUndefined();
    expect(contextRefusal(new ProviderError('refused (400): bad tool schema', 400))).toBeUndefined();
    expect(contextRefusal(new Error('maximum context length is 8192'))).toBeUndefined();
  });
});

describe('settings', () => {
  it('AGENT_NUM_CTX and AGENT_CONTEXT_TOKENS are whole numbers of tokens, or a ConfigError naming them', () => {
    expect(tokensSetting({}, 'AGENT_NUM_CTX')).toBeUndefined();
    expect(tokensSetting({ AGENT_NUM_CTX: '16384' }, 'AGENT_NUM_CTX')).toBe(16_384);
    expect(tokensSetting({ AGENT_NUM_CTX: '32_768' }, 'AGENT_NUM_CTX')).toBe(32_768);
    expect(() => tokensSetting({ AGENT_CONTEXT_TOKENS: '8k' }, 'AGENT_CONTEXT_TOKENS')).toThrow(ConfigError);
    expect(() => tokensSetting({ AGENT_NUM_CTX: '12' }, 'AGENT_NUM_CTX')).toThrow(/AGENT_NUM_CTX must be/);
  });

  it('OLLAMA_HOST in every form Ollama takes; a trailing /v1 is dropped', () => {
    expect(ollamaBaseUrl(undefined)).toBe('http://127.0.0.1:11434');
    expect(ollamaBaseUrl('')).toBe('http://127.0.0.1:11434');
    expect(ollamaBaseUrl('gpu-box')).toBe('http://gpu-box:11434');
    expect(ollamaBaseUrl('gpu-box:8080')).toBe('http://gpu-box:8080');
    expect(ollamaBaseUrl(':8080')).toBe('http://127.0.0.1:8080');
    expect(ollamaBaseUrl('0.0.0.0')).toBe('http://127.0.0.1:11434');
    expect(ollamaBaseUrl('http://localhost:11434')).toBe('http://localhost:11434');
    expect(ollamaBaseUrl('http://localhost:11434/v1')).toBe('http://localhost:11434');
    expect(ollamaBaseUrl('http://localhost:11434/v1/')).toBe('http://localhost:11434');
    expect(ollamaBaseUrl('https://ollama.example.com')).toBe('https://ollama.example.com:443');
    expect(ollamaBaseUrl('https://proxy.example.com/ollama/')).toBe('https://proxy.example.com:443/ollama');
    expect(ollamaBaseUrl('http://example.com')).toBe('http://example.com:80');
    expect(ollamaBaseUrl('[::1]:11434')).toBe('http://[::1]:11434');
    expect(ollamaBaseUrl('"localhost:11434"')).toBe('http://localhost:11434');
  });
});
