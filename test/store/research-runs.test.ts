import { afterEach, describe, expect, it } from 'vitest';
import { AgentError } from '../../src/errors.js';
import type { Store } from '../../src/store/store.js';
import { sqliteFileOf, storesUnderTest } from '../support/stores.js';

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 2, 1, 9, 30);

async function seeded(store: Store) {
  const refunds = await store.runs.save({
    question: 'How much can a support agent refund?',
    mode: 'model',
    answer: 'A support agent can refund up to $200 per order [1].',
    costUsd: 0.0123,
    result: {
      question: 'How much can a support agent refund?',
      sources: [{ n: 1, title: 'Refunds Policy' }],
    },
    createdAt: T0,
  });
  const travel = await store.runs.save({
    question: 'What is the hotel limit in London?',
    mode: 'extractive',
    answer: '- Hotels in London: up to $300 a night [1]',
    costUsd: 0,
    result: { question: 'What is the hotel limit in London?' },
    createdAt: T0 + 2 * DAY,
  });
  // Saved last but dated in between: the list follows the run's time, not the insertion order.
  const unpriced = await store.runs.save({
    question: 'Who approves travel over budget?',
    mode: 'model',
    answer: 'The department head approves it [1].',
    costUsd: null,
    result: { question: 'Who approves travel over budget?' },
    createdAt: T0 + DAY,
  });
  return { store, refunds, travel, unpriced };
}

describe.each(storesUnderTest())('research runs ($name)', (kind) => {
  afterEach(() => kind.close());

  it('keep the result object exactly as given, with its question, mode, cost and time', async () => {
    const store = await kind.open();
    const result = {
      question: 'Café limits — “quoted”?',
      mode: 'model',
      answer: 'Up to €50 [1].',
      sources: [{ n: 1, title: 'Expenses', location: '/docs/expenses.md', kind: 'document', read: 'read' }],
      grounding: { checked: 1, unsupported: [] },
      usage: { calls: 3, costUsd: 0.5 },
      settings: { depth: 2, report: false },
      nested: { empty: [], nothing: null, flag: true },
    };
    const id = await store.runs.save({
      question: result.question,
      mode: 'model',
      answer: result.answer,
      costUsd: 0.5,
      result,
      createdAt: T0,
    });
    expect(await store.runs.get(id)).toEqual({
      id,
      createdAt: '2026-03-01T09:30:00.000Z',
      question: 'Café limits — “quoted”?',
      mode: 'model',
      costUsd: 0.5,
      answer: 'Up to €50 [1].',
      result,
      status: 'done',
      user: 'tester',
    });
    expect(await store.runs.get(id + 1)).toBeUndefined();
  });

  it('are listed newest first, with a limit', async () => {
    const { store, refunds, travel, unpriced } = await seeded(await kind.open());
    expect((await store.runs.list()).map((r) => r.id)).toEqual([travel, unpriced, refunds]);
    expect((await store.runs.list({ limit: 2 })).map((r) => r.id)).toEqual([travel, unpriced]);
    expect((await store.runs.list())[1]).toEqual({
      id: unpriced,
      createdAt: new Date(T0 + DAY).toISOString(),
      question: 'Who approves travel over budget?',
      mode: 'model',
      costUsd: null,
      status: 'done',
      user: 'tester',
    });
  });

  it('are found by full-text search over question and answer', async () => {
    const { store, refunds, travel, unpriced } = await seeded(await kind.open());
    // Words of the answer only, and stemmed: "refunds" finds "refund".
    expect((await store.runs.list({ query: 'refunds per order' })).map((r) => r.id)).toEqual([refunds]);
    expect((await store.runs.list({ query: 'London hotels' })).map((r) => r.id)).toEqual([travel]);
    // No run has every word: runs with any of them, still newest first.
    expect((await store.runs.list({ query: 'travel refund' })).map((r) => r.id)).toEqual([unpriced, refunds]);
    expect(await store.runs.list({ query: 'kangaroo' })).toEqual([]);
    // Punctuation is never FTS5 syntax.
    expect(await store.runs.list({ query: 'C++ "unbalanced OR' })).toEqual([]);
    expect(await store.runs.list({ query: '?!' })).toEqual([]);
  });

  it('are deleted one at a time, and a deleted run is neither found nor its number reused', async () => {
    const { store, refunds, travel, unpriced } = await seeded(await kind.open());
    expect(await store.runs.delete(travel)).toBe(true);
    expect(await store.runs.delete(travel)).toBe(false);
    expect(await store.runs.get(travel)).toBeUndefined();
    expect(await store.runs.list({ query: 'London' })).toEqual([]);
    expect((await store.runs.list()).map((r) => r.id)).toEqual([unpriced, refunds]);
    const next = await store.runs.save({ question: 'Q', mode: 'model', answer: 'A', costUsd: 0, result: {} });
    expect(next).toBeGreaterThan(travel);
    // Saved now, so it comes first.
    expect((await store.runs.list())[0]?.id).toBe(next);
  });

  it.runIf(kind.name === 'sqlite')(
    'say in one line that nothing was saved when the database cannot be written',
    async () => {
      const { store, refunds } = await seeded(await kind.open());
      const db = sqliteFileOf(store);
      // Answers SQLITE_READONLY to every write, as a read-only file does (root ignores file modes).
      db.pragma('query_only = ON');
      const save = () =>
        store.runs.save({ question: 'Q', mode: 'model', answer: 'A', costUsd: 0, result: {} });
      await expect(save()).rejects.toThrow(AgentError);
      await expect(save()).rejects.toThrow(/^the database .* is read-only/);
      await expect(store.runs.delete(refunds)).rejects.toThrow(/^the database .* is read-only/);
      expect(await store.runs.list()).toHaveLength(3);
    },
  );
});
