import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { RUN_STALE_MS } from '../../src/store/holder.js';
import { migrate, migrations } from '../../src/store/sqlite/migrations.js';
import type { Db } from '../../src/store/sqlite/open.js';
import type { Store } from '../../src/store/store.js';
import { sqliteFileOf, storesUnderTest } from '../support/stores.js';

const POLICY = `# Refunds\n\n${'A support agent can refund up to $200 without approval. '.repeat(50)}`;

async function started(store: Store, holder = `${hostname()}:${process.pid}:test`) {
  return await store.progress.start({
    question: 'What is the refund limit?',
    createdAt: Date.parse('2026-03-01T10:00:00Z'),
    ledgerId: 'ledger-1',
    options: { question: 'What is the refund limit?', settings: { depth: 2 } },
    holder,
    plan: { documents: ['policies/refunds'], searches: ['refund law'] },
  });
}

const ANSWERED = { question: 'q', mode: 'model', answer: 'a', costUsd: 0, result: {} };

const countOf = (db: Db, table: string) =>
  db.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get() as number;

/** Rows in a table of either store (PostgreSQL's through its own connection). */
async function rowsIn(kind: { name: string }, store: Store, table: string): Promise<number> {
  if (kind.name === 'sqlite') return countOf(sqliteFileOf(store), table);
  const pg = store as unknown as { db: { one(sql: string): Promise<{ n: number }> } };
  return (await pg.db.one(`SELECT count(*)::int AS n FROM ${table}`)).n;
}

/** The id of a process that has ended. */
const deadPid = () => spawnSync(process.execPath, ['-e', '0']).pid!;

describe.each(storesUnderTest())('the progress of unfinished research runs ($name)', (kind) => {
  afterEach(() => kind.close());

  it.runIf(kind.name === 'sqlite')('arrives with migration 013: runs saved before it are done', async () => {
    const db = new Database(':memory:');
    const steps = migrations();
    const at = steps.findIndex((m) => m.name === '013_run_progress');
    migrate(db, steps.slice(0, at));
    db.prepare(
      `INSERT INTO research_runs (created_at, question, mode, answer, cost_usd, result) VALUES (1, 'q', 'model', 'a', 0, '{}')`,
    ).run();
    migrate(db, steps);
    expect(db.prepare('SELECT status FROM research_runs').pluck().all()).toEqual(['done']);
    expect(() => db.prepare("UPDATE research_runs SET status = 'half'").run()).toThrow(/CHECK/);
  });

  it('keeps what a run did, step by step, and gives it back to continue it', async () => {
    const store = await kind.open();
    const id = await started(store);
    await store.progress.recordPlan(id, 2, {
      documents: [],
      searches: ['refund law 2026'],
      gaps: ['the law'],
    });
    await store.progress.recordSearch(id, 'refund law', [
      { title: 'Law', url: 'https://law.example/refunds', snippet: 's' },
    ]);
    const readPolicy = () =>
      store.progress.recordSource(id, 'doc:policies/refunds', { kind: 'document', title: 'Refunds' }, POLICY);
    await readPolicy();
    await store.progress.recordSource(
      id,
      'https://law.example/refunds',
      { kind: 'web', title: 'Law', status: 'snippet' },
      's',
    );
    await store.progress.recordFacts(id, 'doc:policies/refunds', '- Up to $200 [1]');
    // Read again (a resumed attempt): the facts already extracted stay.
    await readPolicy();

    const p = (await store.progress.load(id))!;
    expect(p).toMatchObject({
      id,
      status: 'unfinished',
      ledgerId: 'ledger-1',
      question: 'What is the refund limit?',
    });
    expect(p.plans.get(1)).toEqual({ documents: ['policies/refunds'], searches: ['refund law'] });
    expect(p.plans.get(2)).toMatchObject({ gaps: ['the law'] });
    expect(p.searches.get('refund law')).toHaveLength(1);
    expect([...p.sources.keys()]).toEqual(['doc:policies/refunds', 'https://law.example/refunds']);
    expect(p.sources.get('doc:policies/refunds')).toMatchObject({ text: POLICY, facts: '- Up to $200 [1]' });
    expect(p.sources.get('https://law.example/refunds')?.facts).toBeNull();

    expect(await store.runs.list()).toEqual([
      expect.objectContaining({ id, status: 'unfinished', costUsd: 0 }),
    ]);
    expect(await store.runs.get(id)).toMatchObject({ status: 'unfinished', answer: '' });
  });

  it.runIf(kind.name === 'sqlite')(
    'an unfinished run costs what its calls in the ledger cost so far',
    async () => {
      const store = await kind.open();
      const db = sqliteFileOf(store);
      await started(store);
      const insert = db.prepare(
        `INSERT INTO usage_ledger (ts, command, run_id, step, provider, model, input_tokens, cache_read_tokens,
         cache_write_tokens, output_tokens, reasoning_tokens, cost_usd) VALUES (1, 'research', ?, 'extract', 'p', 'm', 1, 0, 0, 1, 0, ?)`,
      );
      insert.run('ledger-1', 0.25);
      insert.run('ledger-1', 0.5);
      insert.run('another-run', 9);
      expect((await store.runs.list())[0]!.costUsd).toBe(0.75);
      insert.run('ledger-1', null);
      expect((await store.runs.list())[0]!.costUsd).toBeNull();
    },
  );

  it('finishing the run completes its row, keeps its number and texts, and drops its progress', async () => {
    const store = await kind.open();
    const id = await started(store);
    await store.progress.recordSource(id, 'doc:a', { kind: 'document' }, POLICY);
    await store.progress.recordSource(id, 'doc:b', { kind: 'document' }, 'dropped by the cap');
    const saved = await store.runs.save({
      id,
      question: 'What is the refund limit?',
      mode: 'model',
      answer: 'Up to $200 [1].',
      costUsd: 0.01,
      result: { answer: 'Up to $200 [1].' },
      texts: [{ n: 1, text: POLICY }],
    });
    expect(saved).toBe(id);
    expect(await store.runs.get(id)).toMatchObject({
      status: 'done',
      answer: 'Up to $200 [1].',
      costUsd: 0.01,
    });
    expect(await store.progress.load(id)).toBeUndefined();
    expect(await store.runs.texts(id)).toEqual(new Map([[1, POLICY]]));
    // The text only the progress used is gone with it.
    expect(await rowsIn(kind, store, 'source_texts')).toBe(1);
    for (const table of ['run_progress', 'run_plans', 'run_searches', 'run_sources'])
      expect(await rowsIn(kind, store, table), table).toBe(0);
    expect(await store.progress.claim(id, 'me')).toEqual({ outcome: 'done' });
  });

  it('a text stays while another run in progress reads it, and goes with the last run using it', async () => {
    const store = await kind.open();
    const [a, b] = [await started(store), await started(store)];
    // Both read POLICY (stored once); each run's own text is stored once too.
    await store.progress.recordSource(a, 'doc:a', { kind: 'document' }, POLICY);
    await store.progress.recordSource(b, 'doc:a', { kind: 'document' }, POLICY);
    await store.progress.recordSource(b, 'doc:b', { kind: 'document' }, 'only b read this');
    expect(await rowsIn(kind, store, 'source_texts')).toBe(2);
    // Read again with another text: the old one goes, as nothing else uses it.
    await store.progress.recordSource(b, 'doc:b', { kind: 'document' }, 'b read it again, changed');
    expect(await rowsIn(kind, store, 'source_texts')).toBe(2);
    expect((await store.progress.load(b))!.sources.get('doc:b')!.text).toBe('b read it again, changed');
    await store.runs.save({ ...ANSWERED, id: a, texts: [{ n: 1, text: 'a cites this' }] });
    // a's progress is gone, but b still reads POLICY; a's cited text is kept with a.
    expect((await store.progress.load(b))!.sources.get('doc:a')!.text).toBe(POLICY);
    expect(await store.runs.texts(a)).toEqual(new Map([[1, 'a cites this']]));
    await store.runs.save({
      ...ANSWERED,
      id: b,
      texts: [
        { n: 1, text: POLICY },
        { n: 2, text: 'a cites this' },
      ],
    });
    expect(await store.runs.texts(b)).toEqual(
      new Map([
        [1, POLICY],
        [2, 'a cites this'],
      ]),
    );
    // POLICY and 'a cites this' are cited; b's changed source text was only progress.
    expect(await rowsIn(kind, store, 'source_texts')).toBe(2);
    await store.runs.delete(a);
    await store.runs.delete(b);
    expect(await rowsIn(kind, store, 'source_texts')).toBe(0);
  });

  it('a run deleted meanwhile is saved anew when it answers', async () => {
    const store = await kind.open();
    const id = await started(store);
    await store.runs.delete(id);
    const saved = await store.runs.save({ ...ANSWERED, id });
    expect(saved).not.toBe(id);
    expect(await store.runs.get(saved)).toMatchObject({ status: 'done', answer: 'a' });
  });

  it.runIf(kind.name === 'sqlite')(
    "deleting a saved run keeps the texts an unfinished run's progress still uses",
    async () => {
      const store = await kind.open();
      const db = sqliteFileOf(store);
      const done = await store.runs.save({ ...ANSWERED, texts: [{ n: 1, text: POLICY }] });
      const id = await started(store);
      await store.progress.recordSource(id, 'doc:a', { kind: 'document' }, POLICY);
      await store.runs.delete(done);
      expect((await store.progress.load(id))!.sources.get('doc:a')!.text).toBe(POLICY);
      await store.runs.delete(id);
      expect(countOf(db, 'source_texts')).toBe(0);
      expect(countOf(db, 'run_sources')).toBe(0);
    },
  );

  it.runIf(kind.name === 'sqlite')(
    'is taken over only from a holder that let go, died, or fell silent',
    async () => {
      const store = await kind.open();
      const db = sqliteFileOf(store);
      const id = await started(store);
      expect(await store.progress.claim(999, 'me')).toEqual({ outcome: 'missing' });
      // This process holds it: busy.
      expect(await store.progress.claim(id, 'me')).toMatchObject({
        outcome: 'busy',
        holder: `${hostname()}:${process.pid}:test`,
      });
      await store.progress.release(id, `${hostname()}:${process.pid}:test`);
      expect(await store.progress.claim(id, `${hostname()}:${process.pid}:second`)).toMatchObject({
        outcome: 'claimed',
      });

      const dead = await started(store, `${hostname()}:${deadPid()}:gone`);
      expect(await store.progress.claim(dead, 'me')).toMatchObject({ outcome: 'claimed' });

      const elsewhere = await started(store, 'another-host:1:x');
      expect(await store.progress.claim(elsewhere, 'me')).toMatchObject({ outcome: 'busy' });
      db.prepare('UPDATE run_progress SET heartbeat = ? WHERE run_id = ?').run(
        Date.now() - RUN_STALE_MS - 1000,
        elsewhere,
      );
      expect(await store.progress.claim(elsewhere, 'me')).toMatchObject({ outcome: 'claimed' });
    },
  );
});
