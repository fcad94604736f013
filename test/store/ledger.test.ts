import { afterEach, describe, expect, it } from 'vitest';
import { findPrice, type Price } from '../../src/providers/prices.js';
import type { Usage } from '../../src/types.js';
import { sqliteFileOf, sqliteStore, storesUnderTest } from '../support/stores.js';

const usage = (u: Partial<Usage>): Usage => ({
  input: 0,
  cacheRead: 0,
  cacheWrite: 0,
  output: 0,
  reasoning: 0,
  ...u,
});

describe.each(storesUnderTest())('ledger ($name)', (kind) => {
  afterEach(() => kind.close());

  it('prices a call from the table, counting every bucket once', async () => {
    const store = await kind.open();
    // claude-sonnet-4-5: $3 in, $15 out, $0.30 cache read, $3.75 cache write per million.
    const cost = await store.ledger.record({
      command: 'chat',
      runId: 'r1',
      step: 'chat',
      provider: 'anthropic',
      model: 'claude-sonnet-4-5-20250929',
      usage: usage({
        input: 1_000_000,
        cacheRead: 1_000_000,
        cacheWrite: 1_000_000,
        output: 1_000_000,
        reasoning: 400_000,
      }),
    });
    expect(cost).toBeCloseTo(3 + 0.3 + 3.75 + 15, 10);
  });

  it('records an unknown model with its tokens and a null cost, shown as unknown, never $0', async () => {
    const store = await kind.open();
    expect(
      await store.ledger.record({
        command: 'chat',
        runId: 'r',
        step: 'chat',
        provider: 'openai-compatible',
        model: 'mystery-7b',
        usage: usage({ input: 50, output: 5 }),
      }),
    ).toBeNull();
    await store.ledger.record({
      command: 'chat',
      runId: 'r',
      step: 'chat',
      provider: 'openai',
      model: 'gpt-4o-mini',
      usage: usage({ input: 1_000_000 }),
    });
    const report = await store.ledger.report({ by: 'model' });
    expect(report.totals).toMatchObject({
      calls: 2,
      inputTokens: 1_000_050,
      costUsd: 0.15,
      unpricedCalls: 1,
    });
    const mystery = report.rows.find((r) => r.key.includes('mystery-7b'));
    expect(mystery).toMatchObject({ calls: 1, costUsd: null, unpricedCalls: 1 });
  });

  it.runIf(kind.name === 'sqlite')(
    'keeps the price used on the row, so a later price change does not rewrite history',
    async () => {
      const store = await kind.open();
      const db = sqliteFileOf(store);
      const before: Record<string, Price> = {
        'house-model': { input: 2, output: 2, cacheRead: 2, cacheWrite: 2, source: 'test' },
      };
      await store.ledger.record(
        {
          command: 'chat',
          runId: 'r',
          step: 'chat',
          provider: 'openai',
          model: 'house-model',
          usage: usage({ input: 1_000_000 }),
        },
        before,
      );
      const after: Record<string, Price> = {
        'house-model': { input: 9, output: 9, cacheRead: 9, cacheWrite: 9, source: 'test' },
      };
      await store.ledger.record(
        {
          command: 'chat',
          runId: 'r',
          step: 'chat',
          provider: 'openai',
          model: 'house-model',
          usage: usage({ input: 1_000_000 }),
        },
        after,
      );
      expect((await store.ledger.report({ by: 'model' })).totals.costUsd).toBe(11);
      expect(db.prepare('SELECT price_input FROM usage_ledger ORDER BY id').all()).toEqual([
        { price_input: 2 },
        { price_input: 9 },
      ]);
    },
  );

  it.runIf(kind.name === 'sqlite')(
    'marks a cancelled call, prices it like any other, and counts it per group and in total',
    async () => {
      const store = await kind.open();
      const db = sqliteFileOf(store);
      const base = {
        command: 'chat' as const,
        runId: 'r',
        step: 'chat',
        provider: 'openai',
        model: 'gpt-4o-mini',
      };
      await store.ledger.record({ ...base, usage: usage({ input: 1_000_000 }) });
      const cost = await store.ledger.record({
        ...base,
        usage: usage({ input: 1_000_000, output: 10 }),
        cancelled: true,
      });
      expect(cost).toBeCloseTo(0.15 + 10 * 0.6e-6, 12);
      expect(db.prepare('SELECT cancelled FROM usage_ledger ORDER BY id').pluck().all()).toEqual([0, 1]);
      const report = await store.ledger.report({ by: 'model' });
      expect(report.totals).toMatchObject({ calls: 2, inputTokens: 2_000_000, cancelledCalls: 1 });
      expect(report.totals.costUsd).toBeCloseTo(0.3 + 10 * 0.6e-6, 12);
      expect(report.rows[0]).toMatchObject({ calls: 2, cancelledCalls: 1 });
    },
  );

  it('groups by who made the calls: AGENT_USER, else the user name', async () => {
    const alice = await kind.open({ user: 'alice' });
    const bob = await kind.open({ user: 'bob' });
    const call = {
      command: 'chat' as const,
      runId: 'r',
      step: 'chat',
      provider: 'openai',
      model: 'gpt-4o-mini',
    };
    await alice.ledger.record({ ...call, usage: usage({ input: 1_000_000 }) });
    await bob.ledger.record({ ...call, usage: usage({ input: 2_000_000 }) });
    await bob.ledger.record({ ...call, usage: usage({ input: 2_000_000 }) });
    const report = await alice.ledger.report({ by: 'user' });
    expect(report.rows.map((r) => [r.key, r.calls, r.inputTokens])).toEqual([
      ['bob', 2, 4_000_000],
      ['alice', 1, 1_000_000],
    ]);
    expect(report.totals.calls).toBe(3);
  });

  it('groups by command and by day and filters by time', async () => {
    const store = await kind.open();
    const day = (d: string) => new Date(`${d}T12:00:00`).getTime();
    const base = {
      runId: 'x',
      provider: 'anthropic',
      model: 'claude-haiku-4-5',
      usage: usage({ input: 100, output: 10 }),
    };
    await store.ledger.record({ ...base, command: 'chat', step: 'chat', ts: day('2026-11-01') });
    await store.ledger.record({ ...base, command: 'research', step: 'plan', ts: day('2026-11-02') });
    await store.ledger.record({ ...base, command: 'research', step: 'write', ts: day('2026-11-02') });
    expect((await store.ledger.report({ by: 'command' })).rows.map((r) => [r.key, r.calls])).toEqual([
      ['research', 2],
      ['chat', 1],
    ]);
    expect((await store.ledger.report({ by: 'day' })).rows.map((r) => [r.key, r.calls])).toEqual([
      ['2026-11-01', 1],
      ['2026-11-02', 2],
    ]);
    expect(
      (await store.ledger.report({ by: 'model', since: day('2026-11-02') - 3_600_000 })).totals.calls,
    ).toBe(2);
  });
});

describe('prices', () => {
  it('dated snapshots take their family price, other variants stay unknown', async () => {
    expect(findPrice('openai', 'gpt-4o-2024-08-06')?.input).toBe(2.5);
    expect(findPrice('openai', 'gpt-4o-mini-2024-07-18')?.input).toBe(0.15);
    expect(findPrice('openai', 'gpt-5-pro')).toBeUndefined();
    expect(findPrice('ollama', 'llama3.1')?.input).toBe(0);
  });
});

describe('a database that cannot be written', () => {
  it('refuses with one line that says nothing was saved', async () => {
    const { tempDb } = await import('../support/cli.js');
    const path = tempDb();
    await (await sqliteStore(path)).close();
    const store = await sqliteStore(path);
    const db = store.db;
    // A read-only connection stands in for a full or read-only disk: the write fails at the same place.
    db.pragma('query_only = ON');
    await expect(
      store.ledger.record({
        command: 'chat',
        runId: 'r',
        step: 'chat',
        provider: 'anthropic',
        model: 'claude-haiku-5-5',
        usage: usage({ input: 1 }),
      }),
    ).rejects.toThrow(/^the database .* is read-only/);
    await store.close();
  });
});
