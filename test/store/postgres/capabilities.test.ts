import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openPostgres } from '../../../src/store/postgres/open.js';
import type { PostgresStore } from '../../../src/store/postgres/store.js';
import type { Message, Usage } from '../../../src/types.js';
import { openTestStore, startTestDatabase, type TestDatabase } from '../../support/pg.js';

// Each capability of the PostgreSQL store behaves as the SQLite one: the same shapes, the same order.

const usage = (u: Partial<Usage>): Usage => ({
  input: 0,
  cacheRead: 0,
  cacheWrite: 0,
  output: 0,
  reasoning: 0,
  ...u,
});
/** Who created a row (the row types gain `user` with store19's types.ts). */
const userOf = (row: object | undefined) => (row as { user?: string } | undefined)?.user;
const user = (content: string): Message => ({ role: 'user', content }) as Message;
const reply = (text: string): Message =>
  ({ role: 'assistant', content: [{ type: 'text', text }], stopReason: 'stop' }) as unknown as Message;

let db: TestDatabase;
let store: PostgresStore;
beforeAll(async () => {
  db = await startTestDatabase();
});
afterAll(async () => {
  await store?.close();
  await db?.stop();
});
beforeEach(async () => {
  await store?.close();
  await db.reset();
  store = await openTestStore(db, 'ann');
});

describe('ledger', () => {
  it('prices each call, keeps unknown models unpriced, and groups by model, command and user', async () => {
    const sonnet = { provider: 'anthropic', model: 'claude-sonnet-4-5-20250929' };
    const cost = await store.ledger.record({
      command: 'chat',
      runId: 'r1',
      step: 'chat',
      ...sonnet,
      usage: usage({ input: 1_000_000, cacheRead: 1_000_000, cacheWrite: 1_000_000, output: 1_000_000 }),
    });
    expect(cost).toBeCloseTo(3 + 0.3 + 3.75 + 15, 10);
    const other = await openTestStore(db, 'bob');
    try {
      expect(
        await other.ledger.record({
          command: 'research',
          runId: 'r2',
          step: 'plan',
          provider: 'openai-compatible',
          model: 'mystery-7b',
          usage: usage({ input: 50, output: 5 }),
          cancelled: true,
        }),
      ).toBeNull();
    } finally {
      await other.close();
    }
    const byModel = await store.ledger.report({ by: 'model' });
    expect(byModel.totals).toMatchObject({
      calls: 2,
      inputTokens: 1_000_050,
      unpricedCalls: 1,
      cancelledCalls: 1,
    });
    expect(byModel.rows.map((r) => r.key)).toEqual([
      'anthropic claude-sonnet-4-5-20250929',
      'openai-compatible mystery-7b',
    ]);
    expect(byModel.rows[1]).toMatchObject({ costUsd: null, calls: 1, unpricedCalls: 1 });
    await db.sql('UPDATE usage_ledger SET created_by = NULL WHERE run_id = $1', ['r2']);
    const byUser = await store.ledger.report({ by: 'user' });
    // Calls recorded before people were recorded are "unknown".
    expect(byUser.rows.map((r) => [r.key, r.calls])).toEqual([
      ['ann', 1],
      ['unknown', 1],
    ]);
    const byDay = await store.ledger.report({ by: 'day', since: 0 });
    expect(byDay.rows[0]!.key).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(await store.ledger.runTotals('r1')).toMatchObject({ calls: 1, outputTokens: 1_000_000 });
    expect(await store.ledger.spentSince(['r1', 'r2'], 0)).toBeCloseTo(22.05, 6);
    expect(await store.ledger.spentSince([], 0)).toBe(0);
  });
});

describe('notes', () => {
  it('lists newest first and finds notes by their words: all of them first, else any', async () => {
    const a = await store.notes.add({
      content: 'The London hotel limit is $300',
      title: 'Travel',
      tags: ['hotel', 'hotel', ' '],
    });
    await store.notes.add({ content: 'Refunds above $200 need a lead' });
    const c = await store.notes.add({ content: 'Hotels in Paris cost less' });
    expect(a.tags).toEqual(['hotel']);
    expect(a).toMatchObject({ user: 'ann' });
    expect(a.createdAt).toMatch(/Z$/);
    expect((await store.notes.list()).map((n) => n.id)).toEqual([c.id, expect.any(Number), a.id]);
    expect((await store.notes.list('london hotels')).map((n) => n.id)).toEqual([a.id]);
    expect((await store.notes.list('hotel berlin')).map((n) => n.id).sort()).toEqual([a.id, c.id].sort());
    expect(await store.notes.list("C++ don't")).toEqual([]);
    expect(await store.notes.list('???')).toEqual([]);
    expect(await store.notes.delete(a.id)).toBe(true);
    expect(await store.notes.delete(a.id)).toBe(false);
    await expect(store.notes.add({ content: '   ' })).rejects.toThrow('A note needs some content.');
  });
});

describe('sessions', () => {
  it('saves exchanges in order, lists only the user’s own unless all, and never reuses a number', async () => {
    const id = await store.sessions.saveExchange(undefined, 'chat-1', {
      provider: 'anthropic',
      model: 'm1',
      messages: [user('hello'), reply('hi')],
    });
    expect(
      await store.sessions.saveExchange(id, 'chat-1', {
        provider: 'openai',
        model: 'm2',
        messages: [user('more'), reply('yes')],
      }),
    ).toBe(id);
    await store.ledger.record({
      command: 'chat',
      runId: 'chat-1',
      step: 'chat',
      provider: 'x',
      model: 'y',
      usage: usage({}),
    });
    const messages = await store.sessions.messages(id);
    expect(messages.map((m) => [m.exchange, m.model, m.message.role])).toEqual([
      [1, 'm1', 'user'],
      [1, 'm1', 'assistant'],
      [2, 'm2', 'user'],
      [2, 'm2', 'assistant'],
    ]);
    expect(messages[1]!.message).toEqual(reply('hi'));
    const summary = await store.sessions.get(id);
    expect(summary).toMatchObject({
      id,
      runId: 'chat-1',
      provider: 'openai',
      model: 'm2',
      exchanges: 2,
      calls: 1,
      unpricedCalls: 1,
      pricedUsd: null,
      firstMessage: 'hello',
    });

    const bob = await openTestStore(db, 'bob');
    try {
      const his = await bob.sessions.saveExchange(undefined, 'chat-2', {
        provider: 'p',
        model: 'm',
        messages: [user('mine')],
      });
      expect((await store.sessions.list()).map((s) => s.id)).toEqual([id]);
      expect((await store.sessions.list({ all: true })).map((s) => s.id)).toEqual([his, id]);
      expect(await store.sessions.get(his)).toBeUndefined();
      expect(userOf(await store.sessions.get(id))).toBe('ann');
      expect((await store.sessions.get(his, { all: true }))?.firstMessage).toBe('mine');
      expect((await store.sessions.latest())?.id).toBe(id);
      expect((await bob.sessions.latest())?.id).toBe(his);
      // Another's session cannot be deleted; one kept before people were recorded is everyone's.
      expect(await store.sessions.delete(his)).toBe(false);
      await db.sql('UPDATE chat_sessions SET created_by = NULL WHERE id = $1', [his]);
      expect((await store.sessions.list()).map((s) => [s.id, userOf(s)])).toEqual([
        [his, ''],
        [id, 'ann'],
      ]);
      expect(await store.sessions.delete(his)).toBe(true);
    } finally {
      await bob.close();
    }
    expect(await store.sessions.delete(id)).toBe(true);
    expect(await store.sessions.messages(id)).toEqual([]);
    await expect(
      store.sessions.saveExchange(id, 'chat-1', { provider: 'p', model: 'm', messages: [user('late')] }),
    ).rejects.toThrow(`Chat session #${id} was deleted while this chat was open`);
    const next = await store.sessions.saveExchange(undefined, 'chat-3', {
      provider: 'p',
      model: 'm',
      messages: [user('new')],
    });
    expect(next).toBeGreaterThan(id);
    expect((await store.runs.list()).length).toBe(0);
    // The ledger keeps what was spent.
    expect((await store.ledger.runTotals('chat-1')).calls).toBe(1);
  });
});

describe('reports (saved runs) and their progress', () => {
  it('keeps the result exactly, finds runs by words and by user, and shares texts between runs', async () => {
    const result = { z: 1, a: { nested: [3, 2, 1] }, question: 'q' };
    const id = await store.runs.save({
      question: 'What is the London hotel limit?',
      mode: 'model',
      answer: 'It is $300 [1].',
      costUsd: 0.01,
      result,
      texts: [{ n: 1, text: 'London: $300 a night.' }],
      createdAt: 1000,
    });
    const other = await store.runs.save({
      question: 'Refund limits?',
      mode: 'extractive',
      answer: 'Up to $200.',
      costUsd: null,
      result: {},
      createdAt: 2000,
      texts: [{ n: 1, text: 'London: $300 a night.' }],
    });
    const saved = await store.runs.get(id);
    expect(saved).toMatchObject({
      id,
      question: 'What is the London hotel limit?',
      mode: 'model',
      costUsd: 0.01,
      status: 'done',
      createdAt: new Date(1000).toISOString(),
    });
    expect(JSON.stringify(saved!.result)).toBe(JSON.stringify(result));
    expect((await store.runs.list()).map((r) => r.id)).toEqual([other, id]);
    expect((await store.runs.list({ query: 'london hotels' })).map((r) => r.id)).toEqual([id]);
    expect((await store.runs.list({ query: 'london refund' })).map((r) => r.id)).toEqual([other, id]);
    expect((await store.runs.list({ user: 'ann' })).map(userOf)).toEqual(['ann', 'ann']);
    expect(await store.runs.list({ user: 'bob' })).toEqual([]);
    expect((await store.runs.ofQuestion('Refund limits?', 'extractive')).map((r) => r.id)).toEqual([other]);
    expect(await store.runs.texts(id)).toEqual(new Map([[1, 'London: $300 a night.']]));
    expect(await db.sql('SELECT count(*)::int AS n FROM source_texts')).toEqual([{ n: 1 }]);
    expect(await store.runs.delete(id)).toBe(true);
    expect(await db.sql('SELECT count(*)::int AS n FROM source_texts')).toEqual([{ n: 1 }]);
    expect(await store.runs.delete(other)).toBe(true);
    expect(await db.sql('SELECT count(*)::int AS n FROM source_texts')).toEqual([{ n: 0 }]);
    expect(await store.runs.delete(other)).toBe(false);
  });

  it('keeps an unfinished run step by step, hands it to one holder at a time, and completes it', async () => {
    const id = await store.progress.start({
      question: 'Q?',
      createdAt: 5,
      ledgerId: 'led-1',
      options: { depth: 2 },
      holder: 'h:1:a',
      plan: { searches: ['x'] },
    });
    await store.progress.recordPlan(id, 2, { gaps: ['g'] });
    await store.progress.recordSearch(id, 'x', [{ url: 'https://e.x' }]);
    await store.progress.recordSource(id, 'doc:b', { title: 'B' }, 'text b');
    await store.progress.recordSource(id, 'doc:a', { title: 'A' }, 'text a');
    await store.progress.recordFacts(id, 'doc:b', 'facts b');
    await store.progress.recordSource(id, 'doc:b', { title: 'B2' }, 'text b');
    await store.ledger.record({
      command: 'research',
      runId: 'led-1',
      step: 'plan',
      provider: 'anthropic',
      model: 'claude-sonnet-4-5-20250929',
      usage: usage({ output: 1_000_000 }),
    });
    expect((await store.runs.list())[0]).toMatchObject({ id, status: 'unfinished', costUsd: 15 });

    const progress = (await store.progress.load(id))!;
    expect(progress).toMatchObject({
      question: 'Q?',
      status: 'unfinished',
      ledgerId: 'led-1',
      options: { depth: 2 },
      holder: 'h:1:a',
    });
    expect([...progress.plans.keys()]).toEqual([1, 2]);
    expect(progress.searches.get('x')).toEqual([{ url: 'https://e.x' }]);
    expect([...progress.sources.entries()]).toEqual([
      ['doc:b', { source: { title: 'B2' }, text: 'text b', facts: 'facts b' }],
      ['doc:a', { source: { title: 'A' }, text: 'text a', facts: null }],
    ]);

    // A holder on another machine that is still beating keeps it.
    expect(await store.progress.claim(id, 'h:2:b')).toEqual({ outcome: 'busy', holder: 'h:1:a' });
    expect(await store.progress.renew(id, 'h:1:a')).toBe(true);
    await store.progress.release(id, 'h:1:a');
    expect(await store.progress.renew(id, 'h:1:a')).toBe(false);
    const claims = await Promise.all([store.progress.claim(id, 'h:2:b'), store.progress.claim(id, 'h:3:c')]);
    expect(claims.filter((c) => c.outcome === 'claimed')).toHaveLength(1);
    expect(await store.progress.claim(999_999, 'h:2:b')).toEqual({ outcome: 'missing' });

    expect(
      await store.runs.save({
        id,
        question: 'Q?',
        mode: 'model',
        answer: 'A.',
        costUsd: 15,
        result: { ok: true },
        texts: [{ n: 1, text: 'text a' }],
      }),
    ).toBe(id);
    expect(await store.progress.load(id)).toBeUndefined();
    expect(await store.progress.claim(id, 'h:2:b')).toEqual({ outcome: 'done' });
    expect((await store.runs.get(id))!.status).toBe('done');
    // Only the text the saved run uses is kept.
    expect(await db.sql('SELECT count(*)::int AS n FROM source_texts')).toEqual([{ n: 1 }]);
  });
});

describe('caches', () => {
  it('stores a page once per text, revalidates it, and clears by age', async () => {
    expect(await store.cache.available()).toBe(true);
    const page = {
      url: 'https://e.x/a',
      finalUrl: 'https://e.x/a',
      fetchedAt: 1000,
      etag: '"v1"',
      lastModified: null,
      policy: { h: 1 },
      extractor: 3,
      title: 'A',
      kind: 'html',
      pages: null,
      text: 'Hello',
    };
    await store.cache.putPage(page);
    await store.cache.putPage({ ...page, url: 'https://e.x/b', fetchedAt: 5000 });
    expect(await store.cache.getPage('https://e.x/a')).toEqual(page);
    expect(await store.cache.getPage('https://e.x/none')).toBeUndefined();
    await store.cache.touchPage('https://e.x/a', {
      fetchedAt: 2000,
      etag: '"v2"',
      lastModified: 'x',
      policy: { h: 2 },
    });
    expect(await store.cache.getPage('https://e.x/a')).toMatchObject({
      fetchedAt: 2000,
      etag: '"v2"',
      policy: { h: 2 },
    });
    const key = { sourceHash: 'h', question: 'q', model: 'm', promptVersion: 1 };
    await store.cache.putExtraction(key, 'facts', 1500);
    await store.cache.putExtraction(key, 'facts 2', 1600);
    expect(await store.cache.getExtraction(key)).toBe('facts 2');
    const stats = await store.cache.stats();
    expect(stats.pages).toMatchObject({ count: 2, oldest: 2000, newest: 5000 });
    expect(stats.extractions).toMatchObject({ count: 1, oldest: 1600 });
    const removed = await store.cache.clear(3000);
    expect(removed.pages.count).toBe(1);
    expect(removed.extractions.count).toBe(1);
    expect(await db.sql('SELECT count(*)::int AS n FROM page_bodies')).toEqual([{ n: 1 }]);
    await store.cache.deletePage('https://e.x/b');
    expect(await db.sql('SELECT count(*)::int AS n FROM page_bodies')).toEqual([{ n: 0 }]);
  });
});

describe('status', () => {
  it('says which steps an unmigrated database lacks, and counts nothing there', async () => {
    await store.close();
    await db.reset();
    store = await openPostgres(db.url, { migrate: false, env: { AGENT_USER: 'ann' } });
    const before = await store.status();
    expect(before).toMatchObject({
      schemaVersion: 0,
      counts: { reports: 0, notes: 0, sessions: 0, ledger: 0, documents: 0 },
    });
    expect((before as unknown as { pending: string[] }).pending).toHaveLength(22);
    expect(await store.migrate()).toHaveLength(22);
    expect(await store.migrate()).toEqual([]);
    expect((await store.status()).schemaVersion).toBe(21);
  });

  it('counts what the database holds', async () => {
    await store.notes.add({ content: 'n' });
    await store.runs.save({ question: 'q', mode: 'model', answer: 'a', costUsd: null, result: {} });
    const status = await store.status();
    expect(status).toMatchObject({
      kind: 'postgres',
      schemaVersion: 21,
      counts: { reports: 1, notes: 1, sessions: 0, ledger: 0, documents: 0 },
      pending: [],
    });
    expect(status.location).toBe(store.location);
  });
});
