import { describe, expect, it } from 'vitest';
import {
  convertOllamaMessages,
  convertOllamaTools,
  fromOllamaToolCall,
  fromOllamaUsage,
  mapOllamaDoneReason,
  trainedContext,
} from '../../src/providers/ollama-map.js';
import type { Message } from '../../src/types.js';

const usage = { input: 1, cacheRead: 0, cacheWrite: 0, output: 1, reasoning: 0 };

describe("Ollama's native wire format", () => {
  it('messages: tool calls with object arguments as the model gave them, results as tool_name + content', () => {
    const history: Message[] = [
      { role: 'user', content: 'Add 2 and 3.' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Adding.' },
          { type: 'toolCall', id: 'call_1', name: 'add', argumentsText: '{"a":2,"b":3}' },
          { type: 'toolCall', id: 'call_2', name: 'fail', argumentsText: '' },
        ],
        provider: 'ollama',
        model: 'llama3.1',
        usage,
        stopReason: 'toolUse',
      },
      { role: 'toolResult', toolCallId: 'call_1', toolName: 'add', content: '5', isError: false },
      { role: 'toolResult', toolCallId: 'call_2', toolName: 'fail', content: 'disk on fire', isError: true },
    ];
    expect(convertOllamaMessages('Be terse.', history)).toEqual([
      { role: 'system', content: 'Be terse.' },
      { role: 'user', content: 'Add 2 and 3.' },
      {
        role: 'assistant',
        content: 'Adding.',
        tool_calls: [
          { function: { name: 'add', arguments: { a: 2, b: 3 } } },
          { function: { name: 'fail', arguments: {} } },
        ],
      },
      { role: 'tool', tool_name: 'add', content: '5' },
      { role: 'tool', tool_name: 'fail', content: 'Error: disk on fire' },
    ]);
    expect(convertOllamaMessages(undefined, [{ role: 'user', content: 'x' }])).toEqual([
      { role: 'user', content: 'x' },
    ]);
  });

  it('tools as JSON schemas; a call back with its arguments as JSON text and an id made when none came', () => {
    const parameters = { type: 'object', properties: { a: { type: 'number' } }, required: ['a'] };
    expect(convertOllamaTools([{ name: 'add', description: 'Adds.', parameters }])).toEqual([
      { type: 'function', function: { name: 'add', description: 'Adds.', parameters } },
    ]);
    const call = fromOllamaToolCall({ function: { name: 'get_weather', arguments: { city: 'Tokyo' } } });
    expect(call).toMatchObject({ type: 'toolCall', name: 'get_weather', argumentsText: '{"city":"Tokyo"}' });
    expect(call.id).toMatch(/^call_[0-9a-f]{24}$/);
    expect(fromOllamaToolCall({ id: 'call_x', function: { name: 'f' } })).toMatchObject({
      id: 'call_x',
      argumentsText: '{}',
    });
  });

  it('done_reason: stop, length, and stop with calls is toolUse', () => {
    expect(mapOllamaDoneReason('stop', false)).toBe('stop');
    expect(mapOllamaDoneReason('stop', true)).toBe('toolUse');
    expect(mapOllamaDoneReason('length', false)).toBe('length');
    expect(mapOllamaDoneReason(undefined, false)).toBe('stop');
    expect(mapOllamaDoneReason('load', false)).toBe('stop');
  });

  it('usage from prompt_eval_count (with its cached part, where given) and eval_count', () => {
    expect(fromOllamaUsage({ done: true, prompt_eval_count: 169, eval_count: 15 })).toEqual({
      input: 169,
      cacheRead: 0,
      cacheWrite: 0,
      output: 15,
      reasoning: 0,
    });
    expect(
      fromOllamaUsage({ prompt_eval_count: 1000, prompt_eval_cached_count: 800, eval_count: 5 }),
    ).toMatchObject({
      input: 200,
      cacheRead: 800,
    });
    expect(fromOllamaUsage({ done: true })).toMatchObject({ input: 0, output: 0 });
  });

  it("the trained context from /api/show's model_info, under the architecture's name", () => {
    const show = { model_info: { 'general.architecture': 'qwen2', 'qwen2.context_length': 32768 } };
    expect(trainedContext(show)).toBe(32768);
    expect(trainedContext({ model_info: { 'llama.context_length': 131072 } })).toBe(131072);
    expect(trainedContext({ model_info: { 'llama.rope.context_length_scale': 4 } })).toBeUndefined();
    expect(trainedContext({})).toBeUndefined();
    expect(trainedContext(null)).toBeUndefined();
  });
});
