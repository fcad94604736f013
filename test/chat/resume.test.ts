import { describe, expect, it } from 'vitest';
import {
  adaptHistory,
  type HistoryEntry,
  portableToolCallId,
  reasoningNotice,
} from '../../src/chat/resume.js';
import { convertAnthropicMessages } from '../../src/providers/anthropic.js';
import { convertChatMessages } from '../../src/providers/openai-chat.js';
import { convertResponsesInput } from '../../src/providers/openai-responses.js';
import type { AssistantMessage, AssistantPart, Message } from '../../src/types.js';
import { assertWellFormed, text, toolCall } from '../support/scripted-provider.js';

const assistant = (provider: string, model: string, content: AssistantPart[]): AssistantMessage => ({
  role: 'assistant',
  content,
  provider,
  model,
  usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
  stopReason: content.some((p) => p.type === 'toolCall') ? 'toolUse' : 'stop',
});

const thinking: AssistantPart = {
  type: 'reasoning',
  provider: 'anthropic',
  text: 'Let me compute.',
  data: { type: 'thinking', thinking: 'Let me compute.', signature: 'EqQBCkYIBxgCKkD…signed' },
};
const encrypted: AssistantPart = {
  type: 'reasoning',
  provider: 'openai',
  text: '',
  data: { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'gAAAA…' },
};

const result = (id: string, content: string, isError = false): Message => ({
  role: 'toolResult',
  toolCallId: id,
  toolName: 'calculator',
  content,
  isError,
});

const at = (provider: string, model: string, messages: Message[]): HistoryEntry[] =>
  messages.map((message) => ({ message, provider, model }));

/** An Anthropic exchange with signed thinking before a tool call and before the answer. */
const anthropicExchange = at('anthropic', 'claude-sonnet-5-5', [
  { role: 'user', content: 'What is 1234*5678?' },
  assistant('anthropic', 'claude-sonnet-5-5-20260101', [
    thinking,
    toolCall('toolu_01A', 'calculator', { expression: '1234*5678' }),
  ]),
  result('toolu_01A', '7006652'),
  assistant('anthropic', 'claude-sonnet-5-5-20260101', [thinking, text('It is 7,006,652.')]),
]);

const parts = (messages: Message[]) =>
  messages.flatMap((m) => (m.role === 'assistant' ? m.content.map((p) => p.type) : [m.role]));

describe('resuming a saved history', () => {
  it('with the same provider and model, keeps everything as it was, reasoning included', () => {
    const adapted = adaptHistory(anthropicExchange, { provider: 'anthropic', model: 'claude-sonnet-5-5' });
    expect(adapted.messages).toEqual(anthropicExchange.map((e) => e.message));
    expect(reasoningNotice(adapted)).toBeUndefined();
  });

  it('on another provider, drops signed thinking, keeps text, calls and results paired, and says so once', () => {
    const history = [
      ...anthropicExchange,
      ...at('anthropic', 'claude-sonnet-5-5', [
        { role: 'user', content: 'And twice that?' },
        assistant('anthropic', 'claude-sonnet-5-5', [thinking, text('14,013,304.')]),
      ]),
    ];
    const adapted = adaptHistory(history, { provider: 'openai', model: 'gpt-5.4' });
    expect(parts(adapted.messages)).toEqual(['user', 'toolCall', 'toolResult', 'text', 'user', 'text']);
    assertWellFormed(adapted.messages);
    expect(reasoningNotice(adapted)).toBe(
      'Resuming a session from anthropic claude-sonnet-5-5: its reasoning blocks are left out.',
    );
    // What OpenAI is sent holds no trace of Anthropic's thinking, and the result answers the call.
    const input = convertResponsesInput(adapted.messages);
    expect(JSON.stringify(input)).not.toMatch(/signature|thinking/);
    expect(input).toContainEqual(expect.objectContaining({ type: 'function_call', call_id: 'toolu_01A' }));
    expect(input).toContainEqual({ type: 'function_call_output', call_id: 'toolu_01A', output: '7006652' });
  });

  it('on another model of the same provider, drops its signed thinking too', () => {
    const adapted = adaptHistory(anthropicExchange, { provider: 'anthropic', model: 'claude-haiku-5-5' });
    const sent = convertAnthropicMessages(adapted.messages);
    expect(JSON.stringify(sent)).not.toMatch(/"thinking"|signature/);
    expect(sent.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(reasoningNotice(adapted)).toMatch(/from anthropic claude-sonnet-5-5: its reasoning blocks/);
  });

  it("drops OpenAI's encrypted reasoning, and an answer that was only reasoning goes with nothing else", () => {
    const history = at('openai', 'gpt-5.4', [
      { role: 'user', content: 'hello' },
      assistant('openai', 'gpt-5.4', [encrypted]),
      { role: 'user', content: 'What is 2+2?' },
      assistant('openai', 'gpt-5.4', [encrypted, toolCall('call_abc', 'calculator', { expression: '2+2' })]),
      result('call_abc', '4'),
      assistant('openai', 'gpt-5.4', [encrypted, text('4.')]),
    ]);
    const adapted = adaptHistory(history, { provider: 'anthropic', model: 'claude-sonnet-5-5' });
    expect(parts(adapted.messages)).toEqual(['user', 'user', 'toolCall', 'toolResult', 'text']);
    assertWellFormed(adapted.messages);
    expect(reasoningNotice(adapted)).toBe(
      'Resuming a session from openai gpt-5.4: its reasoning blocks are left out.',
    );
    const sent = convertAnthropicMessages(adapted.messages);
    expect(JSON.stringify(sent)).not.toMatch(/encrypted_content|rs_1/);
  });

  it('gives foreign tool call ids a form every provider accepts, the same for a call and its result', () => {
    const odd = 'functions.calculator:0|fc_68a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d2e3';
    const history = at('openai-compatible', 'qwen3', [
      { role: 'user', content: 'two sums' },
      assistant('openai-compatible', 'qwen3', [
        toolCall(odd, 'calculator', { expression: '1+1' }),
        toolCall('call_0', 'calculator', { expression: '2+2' }),
      ]),
      result(odd, '2'),
      result('call_0', '4'),
      assistant('openai-compatible', 'qwen3', [text('2 and 4.')]),
      // This server numbers every turn's calls from 0: the ids repeat across exchanges.
      { role: 'user', content: 'again' },
      assistant('openai-compatible', 'qwen3', [toolCall('call_0', 'calculator', { expression: '3+3' })]),
      result('call_0', '6'),
      assistant('openai-compatible', 'qwen3', [text('6.')]),
    ]);
    const adapted = adaptHistory(history, { provider: 'anthropic', model: 'claude-sonnet-5-5' });
    assertWellFormed(adapted.messages);
    const ids = adapted.messages.flatMap((m) =>
      m.role === 'assistant' ? m.content.flatMap((p) => (p.type === 'toolCall' ? [p.id] : [])) : [],
    );
    expect(ids).toHaveLength(3);
    expect(new Set(ids).size).toBe(3);
    for (const id of ids) expect(id).toMatch(/^[a-zA-Z0-9_-]{1,40}$/);
    expect(ids[0]).toBe(portableToolCallId(odd));
    expect(portableToolCallId(odd)).toBe(portableToolCallId(odd));
    expect(ids[1]).toBe('call_0');
    // Each result still carries the id of its own call, in call order.
    const sent = convertAnthropicMessages(adapted.messages);
    const uses = sent.flatMap((m) =>
      Array.isArray(m.content) ? m.content.flatMap((b) => (b.type === 'tool_use' ? [b.id] : [])) : [],
    );
    const answers = sent.flatMap((m) =>
      Array.isArray(m.content)
        ? m.content.flatMap((b) => (b.type === 'tool_result' ? [b.tool_use_id] : []))
        : [],
    );
    expect(answers).toEqual(uses);
    // And the same history suits OpenAI Chat Completions (ids of at most 40 characters).
    const chat = convertChatMessages(undefined, adapted.messages);
    for (const m of chat) if (m.role === 'tool') expect(m.tool_call_id).toMatch(/^[a-zA-Z0-9_-]{1,40}$/);
  });

  it('keeps every call answered once: a missing result is filled in, a stray one left out', () => {
    const history = at('openai', 'gpt-5.4', [
      { role: 'user', content: 'q' },
      assistant('openai', 'gpt-5.4', [
        toolCall('call_1', 'calculator', { expression: '1' }),
        toolCall('call_2', 'calculator', { expression: '2' }),
      ]),
      result('call_1', '1'),
      result('call_1', '1 again'),
      result('call_9', 'from nowhere'),
      assistant('openai', 'gpt-5.4', [text('done')]),
    ]);
    const adapted = adaptHistory(history, { provider: 'openai', model: 'gpt-5.4' });
    assertWellFormed(adapted.messages);
    expect(adapted.messages[3]).toMatchObject({
      toolCallId: 'call_2',
      isError: true,
      toolName: 'calculator',
    });
    expect(adapted.messages).toHaveLength(5);
  });
});
