import { afterEach, describe, expect, it } from 'vitest';
import { sessionCostUsd } from '../../src/cli/commands/sessions.js';
import type { Store } from '../../src/store/store.js';
import type { Message, Usage } from '../../src/types.js';
import { reply, text, toolCall } from '../support/scripted-provider.js';
import { sqliteFileOf, storesUnderTest } from '../support/stores.js';

const exchange = (question: string, answer: string): Message[] => [
  { role: 'user', content: question },
  reply([toolCall('c1', 'calculator', { expression: '2+2' })]),
  { role: 'toolResult', toolCallId: 'c1', toolName: 'calculator', content: '4', isError: false },
  reply([text(answer)]),
];

const usage = (input: number, output: number): Usage => ({
  input,
  output,
  cacheRead: 0,
  cacheWrite: 0,
  reasoning: 0,
});

const bill = (store: Store, runId: string, model: string) =>
  store.ledger.record({
    command: 'chat',
    runId,
    step: 'chat',
    provider: 'openai',
    model,
    usage: usage(1e6, 1e6),
  });

describe.each(storesUnderTest())('chat sessions store ($name)', (kind) => {
  afterEach(() => kind.close());

  it('creates a session with its first exchange and appends the next ones in order', async () => {
    const store = await kind.open();
    const id = await store.sessions.saveExchange(undefined, 'run-a', {
      provider: 'openai',
      model: 'gpt-5.4-mini',
      messages: exchange('What is 2+2?', 'Four.'),
      ts: 1000,
    });
    expect(
      await store.sessions.saveExchange(id, 'run-a', {
        provider: 'anthropic',
        model: 'claude-sonnet-5-5',
        messages: exchange('And 3+3?', 'Six.'),
        ts: 2000,
      }),
    ).toBe(id);

    const stored = await store.sessions.messages(id);
    expect(stored.map((m) => [m.exchange, m.message.role, m.provider])).toEqual([
      [1, 'user', 'openai'],
      [1, 'assistant', 'openai'],
      [1, 'toolResult', 'openai'],
      [1, 'assistant', 'openai'],
      [2, 'user', 'anthropic'],
      [2, 'assistant', 'anthropic'],
      [2, 'toolResult', 'anthropic'],
      [2, 'assistant', 'anthropic'],
    ]);
    expect(stored.map((m) => m.message)).toEqual([
      ...exchange('What is 2+2?', 'Four.'),
      ...exchange('And 3+3?', 'Six.'),
    ]);
    expect(await store.sessions.get(id)).toMatchObject({
      id,
      runId: 'run-a',
      createdAt: new Date(1000).toISOString(),
      updatedAt: new Date(2000).toISOString(),
      provider: 'anthropic',
      model: 'claude-sonnet-5-5',
      exchanges: 2,
      firstMessage: 'What is 2+2?',
    });
  });

  it('lists the most recently used first, with exchanges and the cost of its ledger run', async () => {
    const store = await kind.open();
    const a = await store.sessions.saveExchange(undefined, 'run-a', {
      provider: 'openai',
      model: 'gpt-5.4-mini',
      messages: exchange('first', 'a'),
      ts: 1000,
    });
    const b = await store.sessions.saveExchange(undefined, 'run-b', {
      provider: 'openai',
      model: 'gpt-5.4-mini',
      messages: exchange('second', 'b'),
      ts: 2000,
    });
    // Session a is used again later: it moves to the top.
    await store.sessions.saveExchange(a, 'run-a', {
      provider: 'openai',
      model: 'gpt-5.4-mini',
      messages: exchange('x', 'y'),
      ts: 3000,
    });
    await bill(store, 'run-a', 'gpt-5.4-mini');
    await bill(store, 'run-a', 'gpt-5.4-mini');
    await bill(store, 'run-b', 'my-unknown-model');
    await bill(store, 'run-other', 'gpt-5.4-mini');

    const list = await store.sessions.list();
    expect(list.map((s) => [s.id, s.exchanges, s.calls, s.unpricedCalls])).toEqual([
      [a, 2, 2, 0],
      [b, 1, 1, 1],
    ]);
    expect(sessionCostUsd(list[0]!)).toBeGreaterThan(0);
    expect(sessionCostUsd(list[0]!)).toBeCloseTo(
      2 * ((await bill(store, 'run-x', 'gpt-5.4-mini')) ?? Number.NaN),
      10,
    );
    // An unknown price makes the total unknown, never a silent under-count.
    expect(sessionCostUsd(list[1]!)).toBeNull();
    expect((await store.sessions.latest())?.id).toBe(a);
    expect(await store.sessions.list({ limit: 1 })).toHaveLength(1);
  });

  it('a session with no model calls costs $0, and an empty store has no latest session', async () => {
    const store = await kind.open();
    expect(await store.sessions.latest()).toBeUndefined();
    const id = await store.sessions.saveExchange(undefined, 'r', {
      provider: 'ollama',
      model: 'llama3.1',
      messages: exchange('q', 'a'),
    });
    expect(sessionCostUsd((await store.sessions.get(id))!)).toBe(0);
  });

  it.runIf(kind.name === 'sqlite')(
    'deletes a session with its messages, keeps its ledger rows, and never reuses its number',
    async () => {
      const store = await kind.open();
      const db = sqliteFileOf(store);
      const id = await store.sessions.saveExchange(undefined, 'run-a', {
        provider: 'openai',
        model: 'm',
        messages: exchange('q', 'a'),
      });
      await bill(store, 'run-a', 'm');
      expect(await store.sessions.delete(id)).toBe(true);
      expect(await store.sessions.delete(id)).toBe(false);
      expect(await store.sessions.get(id)).toBeUndefined();
      expect(db.prepare('SELECT COUNT(*) FROM chat_messages').pluck().get()).toBe(0);
      expect(db.prepare("SELECT COUNT(*) FROM usage_ledger WHERE run_id = 'run-a'").pluck().get()).toBe(1);
      const next = await store.sessions.saveExchange(undefined, 'run-b', {
        provider: 'openai',
        model: 'm',
        messages: exchange('q', 'a'),
      });
      expect(next).toBeGreaterThan(id);
    },
  );

  it('are their owner’s: another person sees them only with all, and cannot delete them', async () => {
    const alice = await kind.open({ user: 'alice' });
    const bob = await kind.open({ user: 'bob' });
    const id = await alice.sessions.saveExchange(undefined, 'run-a', {
      provider: 'openai',
      model: 'm',
      messages: exchange('q', 'a'),
    });
    expect((await alice.sessions.list()).map((s) => [s.id, s.user])).toEqual([[id, 'alice']]);
    expect(await bob.sessions.list()).toEqual([]);
    expect(await bob.sessions.latest()).toBeUndefined();
    expect(await bob.sessions.get(id)).toBeUndefined();
    expect((await bob.sessions.list({ all: true })).map((s) => [s.id, s.user])).toEqual([[id, 'alice']]);
    expect((await bob.sessions.get(id, { all: true }))?.user).toBe('alice');
    expect(await bob.sessions.delete(id)).toBe(false);
    expect(await alice.sessions.delete(id)).toBe(true);
  });

  it.runIf(kind.name === 'sqlite')('an exchange that fails to save leaves nothing half-written', async () => {
    const store = await kind.open();
    const db = sqliteFileOf(store);
    const id = await store.sessions.saveExchange(undefined, 'run-a', {
      provider: 'openai',
      model: 'm',
      messages: exchange('q', 'a'),
    });
    // The third message cannot be stored: the whole exchange is rolled back.
    const bad = exchange('again', 'b');
    (bad[2] as { content: unknown }).content = undefined;
    db.exec(
      "CREATE TRIGGER no_empty BEFORE INSERT ON chat_messages WHEN json_extract(new.message, '$.content') IS NULL BEGIN SELECT RAISE(ABORT, 'bad'); END",
    );
    await expect(
      store.sessions.saveExchange(id, 'run-a', { provider: 'openai', model: 'm', messages: bad }),
    ).rejects.toThrow();
    expect((await store.sessions.get(id))?.exchanges).toBe(1);
    expect(await store.sessions.messages(id)).toHaveLength(4);
  });

  it.runIf(kind.name === 'sqlite')(
    'an exchange for a session deleted meanwhile (by `agent sessions --delete`) says so and saves nothing',
    async () => {
      const store = await kind.open();
      const db = sqliteFileOf(store);
      const id = await store.sessions.saveExchange(undefined, 'run-a', {
        provider: 'openai',
        model: 'm',
        messages: exchange('q', 'a'),
      });
      await store.sessions.delete(id);
      await expect(
        store.sessions.saveExchange(id, 'run-a', {
          provider: 'openai',
          model: 'm',
          messages: exchange('again', 'b'),
        }),
      ).rejects.toThrow(
        `Chat session #${id} was deleted while this chat was open, so this exchange was not saved; /clear starts a new session.`,
      );
      expect(db.prepare('SELECT COUNT(*) FROM chat_messages').pluck().get()).toBe(0);
      expect(await store.sessions.list()).toEqual([]);
    },
  );

  it.runIf(kind.name === 'sqlite')(
    'a database that refuses writes is one line saying nothing was saved',
    async () => {
      const store = await kind.open();
      const db = sqliteFileOf(store);
      // Answers SQLITE_READONLY to every write, as a read-only file does (root ignores file modes).
      db.pragma('query_only = ON');
      await expect(
        store.sessions.saveExchange(undefined, 'r', {
          provider: 'openai',
          model: 'm',
          messages: exchange('q', 'a'),
        }),
      ).rejects.toThrow(/^the database .* is read-only/);
      expect(await store.sessions.list()).toEqual([]);
    },
  );
});
