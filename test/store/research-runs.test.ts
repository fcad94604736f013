import { describe, expect, it } from 'vitest';
import { AgentError } from '../../src/errors.js';
import { openStore } from '../../src/store/open.js';
import { deleteRun, getRun, listRuns, saveRun } from '../../src/store/research-runs.js';

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 2, 1, 9, 30);

function seeded() {
  const db = openStore(':memory:');
  const refunds = saveRun(db, {
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
  const travel = saveRun(db, {
    question: 'What is the hotel limit in London?',
    mode: 'extractive',
    answer: '- Hotels in London: up to $300 a night [1]',
    costUsd: 0,
    result: { question: 'What is the hotel limit in London?' },
    createdAt: T0 + 2 * DAY,
  });
  // Saved last but dated in between: the list follows the run's time, not the insertion order.
  const unpriced = saveRun(db, {
    question: 'Who approves travel over budget?',
    mode: 'model',
    answer: 'The department head approves it [1].',
    costUsd: null,
    result: { question: 'Who approves travel over budget?' },
    createdAt: T0 + DAY,
  });
  return { db, refunds, travel, unpriced };
}

describe('research runs', () => {
  it('keep the result object exactly as given, with its question, mode, cost and time', () => {
    const db = openStore(':memory:');
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
    const id = saveRun(db, {
      question: result.question,
      mode: 'model',
      answer: result.answer,
      costUsd: 0.5,
      result,
      createdAt: T0,
    });
    expect(getRun(db, id)).toEqual({
      id,
      createdAt: '2026-03-01T09:30:00.000Z',
      question: 'Café limits — “quoted”?',
      mode: 'model',
      costUsd: 0.5,
      answer: 'Up to €50 [1].',
      result,
      status: 'done',
    });
    expect(getRun(db, id + 1)).toBeUndefined();
  });

  it('are listed newest first, with a limit', () => {
    const { db, refunds, travel, unpriced } = seeded();
    expect(listRuns(db).map((r) => r.id)).toEqual([travel, unpriced, refunds]);
    expect(listRuns(db, { limit: 2 }).map((r) => r.id)).toEqual([travel, unpriced]);
    expect(listRuns(db)[1]).toEqual({
      id: unpriced,
      createdAt: new Date(T0 + DAY).toISOString(),
      question: 'Who approves travel over budget?',
      mode: 'model',
      costUsd: null,
      status: 'done',
    });
  });

  it('are found by full-text search over question and answer', () => {
    const { db, refunds, travel, unpriced } = seeded();
    // Words of the answer only, and stemmed: "refunds" finds "refund".
    expect(listRuns(db, { query: 'refunds per order' }).map((r) => r.id)).toEqual([refunds]);
    expect(listRuns(db, { query: 'London hotels' }).map((r) => r.id)).toEqual([travel]);
    // No run has every word: runs with any of them, still newest first.
    expect(listRuns(db, { query: 'travel refund' }).map((r) => r.id)).toEqual([unpriced, refunds]);
    expect(listRuns(db, { query: 'kangaroo' })).toEqual([]);
    // Punctuation is never FTS5 syntax.
    expect(listRuns(db, { query: 'C++ "unbalanced OR' })).toEqual([]);
    expect(listRuns(db, { query: '?!' })).toEqual([]);
  });

  it('are deleted one at a time, and a deleted run is neither found nor its number reused', () => {
    const { db, refunds, travel, unpriced } = seeded();
    expect(deleteRun(db, travel)).toBe(true);
    expect(deleteRun(db, travel)).toBe(false);
    expect(getRun(db, travel)).toBeUndefined();
    expect(listRuns(db, { query: 'London' })).toEqual([]);
    expect(listRuns(db).map((r) => r.id)).toEqual([unpriced, refunds]);
    const next = saveRun(db, { question: 'Q', mode: 'model', answer: 'A', costUsd: 0, result: {} });
    expect(next).toBeGreaterThan(travel);
    // Saved now, so it comes first.
    expect(listRuns(db)[0]?.id).toBe(next);
  });

  it('say in one line that nothing was saved when the database cannot be written', () => {
    const { db, refunds } = seeded();
    // Answers SQLITE_READONLY to every write, as a read-only file does (root ignores file modes).
    db.pragma('query_only = ON');
    const save = () => saveRun(db, { question: 'Q', mode: 'model', answer: 'A', costUsd: 0, result: {} });
    expect(save).toThrow(AgentError);
    expect(save).toThrow(/^the database .* is read-only/);
    expect(() => deleteRun(db, refunds)).toThrow(/^the database .* is read-only/);
    expect(listRuns(db)).toHaveLength(3);
  });
});
