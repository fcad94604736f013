import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migrate, migrations } from '../../src/store/migrations.js';
import { openStore } from '../../src/store/open.js';
import { deleteRun, getRun, listRuns, saveRun } from '../../src/store/research-runs.js';
import {
  claimRun,
  loadProgress,
  RUN_STALE_MS,
  recordFacts,
  recordPlan,
  recordSearch,
  recordSource,
  releaseRun,
  startRun,
} from '../../src/store/run-progress.js';
import { runTexts } from '../../src/store/run-texts.js';

const POLICY = `# Refunds\n\n${'A support agent can refund up to $200 without approval. '.repeat(50)}`;

function started(db: ReturnType<typeof openStore>, holder = `${hostname()}:${process.pid}:test`) {
  return startRun(db, {
    question: 'What is the refund limit?',
    createdAt: Date.parse('2026-03-01T10:00:00Z'),
    ledgerId: 'ledger-1',
    options: { question: 'What is the refund limit?', settings: { depth: 2 } },
    holder,
    plan: { documents: ['policies/refunds'], searches: ['refund law'] },
  });
}

const ANSWERED = { question: 'q', mode: 'model', answer: 'a', costUsd: 0, result: {} };

const countOf = (db: ReturnType<typeof openStore>, table: string) =>
  db.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get() as number;

/** The id of a process that has ended. */
const deadPid = () => spawnSync(process.execPath, ['-e', '0']).pid!;

describe('the progress of unfinished research runs', () => {
  it('arrives with migration 013: runs saved before it are done', () => {
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

  it('keeps what a run did, step by step, and gives it back to continue it', () => {
    const db = openStore(':memory:');
    const id = started(db);
    recordPlan(db, id, 2, { documents: [], searches: ['refund law 2026'], gaps: ['the law'] });
    recordSearch(db, id, 'refund law', [{ title: 'Law', url: 'https://law.example/refunds', snippet: 's' }]);
    const readPolicy = () =>
      recordSource(db, id, 'doc:policies/refunds', { kind: 'document', title: 'Refunds' }, POLICY);
    readPolicy();
    recordSource(
      db,
      id,
      'https://law.example/refunds',
      { kind: 'web', title: 'Law', status: 'snippet' },
      's',
    );
    recordFacts(db, id, 'doc:policies/refunds', '- Up to $200 [1]');
    // Read again (a resumed attempt): the facts already extracted stay.
    readPolicy();

    const p = loadProgress(db, id)!;
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

    expect(listRuns(db)).toEqual([expect.objectContaining({ id, status: 'unfinished', costUsd: 0 })]);
    expect(getRun(db, id)).toMatchObject({ status: 'unfinished', answer: '' });
  });

  it('an unfinished run costs what its calls in the ledger cost so far', () => {
    const db = openStore(':memory:');
    started(db);
    const insert = db.prepare(
      `INSERT INTO usage_ledger (ts, command, run_id, step, provider, model, input_tokens, cache_read_tokens,
         cache_write_tokens, output_tokens, reasoning_tokens, cost_usd) VALUES (1, 'research', ?, 'extract', 'p', 'm', 1, 0, 0, 1, 0, ?)`,
    );
    insert.run('ledger-1', 0.25);
    insert.run('ledger-1', 0.5);
    insert.run('another-run', 9);
    expect(listRuns(db)[0]!.costUsd).toBe(0.75);
    insert.run('ledger-1', null);
    expect(listRuns(db)[0]!.costUsd).toBeNull();
  });

  it('finishing the run completes its row, keeps its number and texts, and drops its progress', () => {
    const db = openStore(':memory:');
    const id = started(db);
    recordSource(db, id, 'doc:a', { kind: 'document' }, POLICY);
    recordSource(db, id, 'doc:b', { kind: 'document' }, 'dropped by the cap');
    const saved = saveRun(db, {
      id,
      question: 'What is the refund limit?',
      mode: 'model',
      answer: 'Up to $200 [1].',
      costUsd: 0.01,
      result: { answer: 'Up to $200 [1].' },
      texts: [{ n: 1, text: POLICY }],
    });
    expect(saved).toBe(id);
    expect(getRun(db, id)).toMatchObject({ status: 'done', answer: 'Up to $200 [1].', costUsd: 0.01 });
    expect(loadProgress(db, id)).toBeUndefined();
    expect(runTexts(db, id)).toEqual(new Map([[1, POLICY]]));
    // The text only the progress used is gone with it.
    expect(countOf(db, 'source_texts')).toBe(1);
    for (const table of ['run_progress', 'run_plans', 'run_searches', 'run_sources'])
      expect(countOf(db, table), table).toBe(0);
    expect(claimRun(db, id, 'me')).toEqual({ outcome: 'done' });
  });

  it('a run deleted meanwhile is saved anew when it answers', () => {
    const db = openStore(':memory:');
    const id = started(db);
    deleteRun(db, id);
    const saved = saveRun(db, { ...ANSWERED, id });
    expect(saved).not.toBe(id);
    expect(getRun(db, saved)).toMatchObject({ status: 'done', answer: 'a' });
  });

  it("deleting a saved run keeps the texts an unfinished run's progress still uses", () => {
    const db = openStore(':memory:');
    const done = saveRun(db, { ...ANSWERED, texts: [{ n: 1, text: POLICY }] });
    const id = started(db);
    recordSource(db, id, 'doc:a', { kind: 'document' }, POLICY);
    deleteRun(db, done);
    expect(loadProgress(db, id)!.sources.get('doc:a')!.text).toBe(POLICY);
    deleteRun(db, id);
    expect(countOf(db, 'source_texts')).toBe(0);
    expect(countOf(db, 'run_sources')).toBe(0);
  });

  it('is taken over only from a holder that let go, died, or fell silent', () => {
    const db = openStore(':memory:');
    const id = started(db);
    expect(claimRun(db, 999, 'me')).toEqual({ outcome: 'missing' });
    // This process holds it: busy.
    expect(claimRun(db, id, 'me')).toMatchObject({
      outcome: 'busy',
      holder: `${hostname()}:${process.pid}:test`,
    });
    releaseRun(db, id, `${hostname()}:${process.pid}:test`);
    expect(claimRun(db, id, `${hostname()}:${process.pid}:second`)).toMatchObject({ outcome: 'claimed' });

    const dead = started(db, `${hostname()}:${deadPid()}:gone`);
    expect(claimRun(db, dead, 'me')).toMatchObject({ outcome: 'claimed' });

    const elsewhere = started(db, 'another-host:1:x');
    expect(claimRun(db, elsewhere, 'me')).toMatchObject({ outcome: 'busy' });
    db.prepare('UPDATE run_progress SET heartbeat = ? WHERE run_id = ?').run(
      Date.now() - RUN_STALE_MS - 1000,
      elsewhere,
    );
    expect(claimRun(db, elsewhere, 'me')).toMatchObject({ outcome: 'claimed' });
  });
});
