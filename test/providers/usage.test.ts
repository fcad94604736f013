import { describe, expect, it } from 'vitest';
import {
  fromAnthropicUsage,
  fromOpenAIChatUsage,
  fromOpenAIResponsesUsage,
} from '../../src/providers/usage.js';

describe('usage normalisation', () => {
  it('Anthropic input_tokens is already uncached', () => {
    expect(
      fromAnthropicUsage({
        input_tokens: 12,
        cache_read_input_tokens: 1111,
        cache_creation_input_tokens: 418,
        output_tokens: 90,
      }),
    ).toEqual({ input: 12, cacheRead: 1111, cacheWrite: 418, output: 90, reasoning: 0 });
  });

  it('Anthropic calls with several server iterations are billed as their sum', () => {
    expect(
      fromAnthropicUsage({
        input_tokens: 181,
        cache_read_input_tokens: 0,
        output_tokens: 8,
        iterations: [
          {
            input_tokens: 100,
            output_tokens: 83,
            cache_read_input_tokens: 55096,
            cache_creation_input_tokens: 0,
          },
          { input_tokens: 181, output_tokens: 8, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
        ],
      }),
    ).toEqual({ input: 281, cacheRead: 55096, cacheWrite: 0, output: 91, reasoning: 0 });
  });

  it('OpenAI Responses input_tokens includes cached_tokens, output includes reasoning', () => {
    expect(
      fromOpenAIResponsesUsage({
        input_tokens: 5000,
        input_tokens_details: { cached_tokens: 4096 },
        output_tokens: 700,
        output_tokens_details: { reasoning_tokens: 512 },
      }),
    ).toEqual({ input: 904, cacheRead: 4096, cacheWrite: 0, output: 700, reasoning: 512 });
  });

  it('Chat Completions uses the same rules under the older names, and tolerates missing details', () => {
    expect(
      fromOpenAIChatUsage({
        prompt_tokens: 300,
        completion_tokens: 40,
        prompt_tokens_details: { cached_tokens: 256 },
      }),
    ).toEqual({ input: 44, cacheRead: 256, cacheWrite: 0, output: 40, reasoning: 0 });
    expect(fromOpenAIChatUsage({ prompt_tokens: 7, completion_tokens: 3 })).toEqual({
      input: 7,
      cacheRead: 0,
      cacheWrite: 0,
      output: 3,
      reasoning: 0,
    });
  });
});

describe('Chat Completions tool-call fragments', () => {
  it('starts a new call when a server reuses index 0 with a new id, and fills in missing ids', async () => {
    const { ToolCallAssembler } = await import('../../src/providers/openai-chat.js');
    const a = new ToolCallAssembler();
    a.push({ index: 0, id: 'call_a', function: { name: 'calculator', arguments: '{"expression":' } });
    a.push({ index: 0, function: { arguments: '"1+1"}' } });
    a.push({ index: 0, id: 'call_b', function: { name: 'read_url', arguments: '{"url":"https://e.com"}' } });
    a.push({ index: 1, function: { name: 'save_note', arguments: '{"content":"x"}' } } as never);
    const calls = a.finish();
    expect(calls.map((c) => [c.id, c.name, c.argumentsText])).toEqual([
      ['call_a', 'calculator', '{"expression":"1+1"}'],
      ['call_b', 'read_url', '{"url":"https://e.com"}'],
      [expect.stringMatching(/^call_[0-9a-f]{24}$/), 'save_note', '{"content":"x"}'],
    ]);
  });
});

describe('OpenAI strict function schemas', () => {
  it('are strict when every property is required, without the keywords strict mode rejects', async () => {
    const { convertResponsesTools } = await import('../../src/providers/openai-responses.js');
    const { calculatorTool } = await import('../../src/tools/calculator.js');
    const { webSearchTool } = await import('../../src/tools/web-search.js');
    const { toToolSpec } = await import('../../src/tools/registry.js');
    const [calc, search] = convertResponsesTools([
      toToolSpec(calculatorTool),
      toToolSpec(webSearchTool(undefined)),
    ]);
    expect(calc).toMatchObject({
      strict: true,
      parameters: { required: ['expression'], additionalProperties: false },
    });
    expect(JSON.stringify(calc!.parameters)).not.toMatch(/minLength/);
    // An optional property: sent as it is, non-strict.
    expect(search).toMatchObject({ strict: false, parameters: { required: ['query'] } });
    expect((search!.parameters as any).properties.count).toMatchObject({ minimum: 1, maximum: 10 });
  });
});
