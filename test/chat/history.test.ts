import { expect, it } from 'vitest';
import { trimHistory } from '../../src/chat/history.js';
import { ChatSession } from '../../src/chat/session.js';
import { promptTokens } from '../../src/providers/context.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import type { Message } from '../../src/types.js';
import { assertWellFormed, reply, scriptedProvider, text, toolCall } from '../support/scripted-provider.js';
import { sqliteStore } from '../support/stores.js';
import { testTools } from '../support/test-tools.js';

const exchange = (n: number, size: number): Message[] => [
  { role: 'user', content: `question ${n} ${'x'.repeat(size)}` },
  reply([toolCall(`c${n}`, 'add', { a: 1, b: 2 })]),
  { role: 'toolResult', toolCallId: `c${n}`, toolName: 'add', content: '3', isError: false },
  reply([text(`answer ${n}`)]),
];

it('drops whole exchanges from the start, never splitting a call from its result, always keeping the last', async () => {
  const history = [...exchange(1, 1000), ...exchange(2, 1000), ...exchange(3, 1000)];
  const { messages, dropped } = trimHistory(history, 2500);
  expect(dropped).toBe(1);
  expect(messages[0]).toMatchObject({ role: 'user', content: expect.stringMatching(/^question 2/) });
  assertWellFormed(messages);
  expect(trimHistory(history, 10).messages[0]).toMatchObject({
    content: expect.stringMatching(/^question 3/),
  });
  expect(trimHistory(history, 1_000_000).dropped).toBe(0);
});

it('a session sends only what fits, and says so', async () => {
  const provider = scriptedProvider(() => reply([text('ok')]));
  const session = new ChatSession({
    provider,
    model: 'm',
    registry: new ToolRegistry(testTools().tools),
    maxTurns: 2,
    store: await sqliteStore(':memory:'),
    maxHistoryChars: 150,
  });
  const notices: string[] = [];
  for (let i = 0; i < 3; i++)
    await session.send(`message ${i} ${'y'.repeat(60)}`, {
      onEvent: (e) => e.type === 'notice' && notices.push(e.message),
    });
  expect(
    provider.requests.at(-1)!.messages.map((m) => (m.role === 'user' ? m.content.slice(0, 9) : m.role)),
  ).toEqual(['message 1', 'assistant', 'message 2']);
  expect(notices[0]).toMatch(/oldest exchange\(s\) no longer fit/);
});

it("on a local server, the history is cut to the model's context: each request fits it", async () => {
  const scripted = scriptedProvider(() => reply([text('ok')]));
  const provider = { ...scripted, name: 'ollama' as const, contextTokens: async () => 4096 };
  const registry = new ToolRegistry(testTools().tools);
  const session = new ChatSession({
    provider,
    model: 'm',
    registry,
    maxTurns: 2,
    store: await sqliteStore(':memory:'),
  });
  const notices: string[] = [];
  for (let i = 0; i < 6; i++)
    await session.send(`message ${i} ${'words of a long question '.repeat(200)}`, {
      onEvent: (e) => e.type === 'notice' && notices.push(e.message),
    });
  for (const r of scripted.requests) expect(promptTokens(r)).toBeLessThanOrEqual(4096);
  expect(scripted.requests.at(-1)!.messages.length).toBeLessThan(12);
  expect(notices.some((n) => /oldest exchange\(s\) no longer fit/.test(n))).toBe(true);
});
