import { describe, expect, it } from 'vitest';
import { adaptHistory } from '../../src/chat/resume.js';
import { ChatSession, type SessionOptions } from '../../src/chat/session.js';
import { AbortedError } from '../../src/errors.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import type { Provider } from '../../src/types.js';
import { assertWellFormed, reply, scriptedProvider, text, toolCall } from '../support/scripted-provider.js';
import { sqliteStore } from '../support/stores.js';
import { testTools } from '../support/test-tools.js';

const setup = async (provider: Provider, extra: Partial<SessionOptions> = {}) => {
  const store = await sqliteStore(':memory:');
  const session = new ChatSession({
    provider,
    model: 'm',
    registry: new ToolRegistry(testTools().tools),
    maxTurns: 3,
    store,
    ...extra,
  });
  return { store, session };
};

describe('a chat session is saved as it goes', () => {
  it('nothing is listed before the first answer; then each completed exchange is saved whole', async () => {
    const provider = scriptedProvider([
      reply([toolCall('c1', 'add', { a: 2, b: 2 })]),
      reply([text('4')]),
      reply([text('You asked for a sum.')]),
    ]);
    const { store, session } = await setup(provider);
    expect(await store.sessions.list()).toEqual([]);
    expect(session.id).toBeUndefined();
    await session.send('What is 2+2?');
    const id = session.id!;
    expect(await store.sessions.get(id)).toMatchObject({
      exchanges: 1,
      provider: 'openai-compatible',
      model: 'm',
      runId: session.runId,
      firstMessage: 'What is 2+2?',
    });
    await session.send('What did I ask?');
    const saved = await store.sessions.messages(id);
    expect(saved.map((s) => s.message)).toEqual(session.history);
    expect(saved.map((s) => s.exchange)).toEqual([1, 1, 1, 1, 2, 2]);
    // Billed under the session's run, so its cost is the ledger's.
    expect((await store.sessions.get(id))?.calls).toBe(3);
  });

  it('a failed or cancelled turn is never saved', async () => {
    const controller = new AbortController();
    const provider = scriptedProvider((_req, i) => {
      if (i === 1) throw new Error('server exploded');
      if (i === 2) controller.abort();
      return reply([text(`answer ${i}`)]);
    });
    const { store, session } = await setup(provider);
    await session.send('one');
    await expect(session.send('two')).rejects.toThrow(/server exploded/);
    await expect(session.send('three', { signal: controller.signal })).rejects.toBeInstanceOf(AbortedError);
    expect((await store.sessions.get(session.id!))?.exchanges).toBe(1);
    expect((await store.sessions.messages(session.id!)).map((s) => s.message.role)).toEqual([
      'user',
      'assistant',
    ]);
  });

  it('a /research answer added with remember is saved as an exchange', async () => {
    const { store, session } = await setup(scriptedProvider([]));
    await session.remember('Research this question: refunds?', 'Refunds within 30 days [1].');
    expect((await store.sessions.messages(session.id!)).map((s) => s.message)).toMatchObject([
      { role: 'user', content: 'Research this question: refunds?' },
      { role: 'assistant', content: [{ type: 'text', text: 'Refunds within 30 days [1].' }] },
    ]);
  });

  it('/clear starts a new session under a new run; the old one stays', async () => {
    const { store, session } = await setup(scriptedProvider(() => reply([text('ok')])));
    await session.send('first');
    const first = { id: session.id, run: session.runId };
    expect(session.clear()).toBe(first.id);
    expect(session.id).toBeUndefined();
    expect(session.history).toEqual([]);
    expect(session.runId).not.toBe(first.run);
    await session.send('second');
    expect(session.id).not.toBe(first.id);
    expect((await store.sessions.list()).map((s) => [s.firstMessage, s.exchanges])).toEqual([
      ['second', 1],
      ['first', 1],
    ]);
  });

  it('resumed, it sends the saved history, appends to the same session and bills the same run', async () => {
    const first = await setup(
      scriptedProvider([reply([toolCall('c1', 'add', { a: 1, b: 2 })]), reply([text('3')])]),
    );
    await first.session.send('1+2?');
    const id = first.session.id!;
    const provider = scriptedProvider([reply([text('You asked 1+2.')])]);
    const adapted = adaptHistory(await first.store.sessions.messages(id), {
      provider: provider.name,
      model: 'm',
    });
    const resumed = new ChatSession({
      provider,
      model: 'm',
      registry: new ToolRegistry(testTools().tools),
      maxTurns: 3,
      store: first.store,
      resume: { id, runId: first.session.runId, history: adapted.messages },
    });
    await resumed.send('What did I ask?');
    expect(provider.requests[0]!.messages.map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'toolResult',
      'assistant',
      'user',
    ]);
    assertWellFormed(provider.requests[0]!.messages);
    expect(resumed.id).toBe(id);
    expect(await first.store.sessions.get(id)).toMatchObject({ exchanges: 2, calls: 3 });
  });

  it('a resumed history longer than the context is trimmed, oldest exchanges first, and says so', async () => {
    const long = await setup(scriptedProvider(() => reply([text('ok')])));
    for (let i = 0; i < 4; i++) await long.session.send(`message ${i} ${'y'.repeat(60)}`);
    const provider = scriptedProvider(() => reply([text('ok')]));
    const resumed = new ChatSession({
      provider,
      model: 'm',
      registry: new ToolRegistry(testTools().tools),
      maxTurns: 2,
      store: long.store,
      maxHistoryChars: 170,
      resume: {
        id: long.session.id!,
        runId: long.session.runId,
        history: adaptHistory(await long.store.sessions.messages(long.session.id!), {
          provider: provider.name,
          model: 'm',
        }).messages,
      },
    });
    const notices: string[] = [];
    await resumed.send(`message 4 ${'y'.repeat(60)}`, {
      onEvent: (e) => e.type === 'notice' && notices.push(e.message),
    });
    expect(notices).toEqual(['(The 3 oldest exchange(s) no longer fit the context and were left out.)']);
    expect(
      provider.requests[0]!.messages.map((m) => (m.role === 'user' ? m.content.slice(0, 9) : m.role)),
    ).toEqual(['message 3', 'assistant', 'message 4']);
    // Trimming only shortens what is sent: the saved session keeps every exchange.
    expect((await long.store.sessions.get(long.session.id!))?.exchanges).toBe(5);
  });
});
