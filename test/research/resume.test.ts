import { afterEach, describe, expect, it } from 'vitest';
import { InterruptedRun, type ResearchOptions, runResearch } from '../../src/research/pipeline.js';
import { contentFolder, fakeWeb, researchModel, type Script, stepsOf } from '../support/research-world.js';
import { sqliteStoreNow } from '../support/stores.js';

// The chain with a recorder and a prior: a deep run (two rounds, web and documents) that fails at the
// write is continued, in process, with every earlier step taken from the record.

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

const html = (title: string, body: string) =>
  `<html><head><title>${title}</title></head><body><main><h1>${title}</h1>${body}</main></body></html>`;

const docs = {
  'policies/travel.md': '# Travel\n\nThe nightly hotel limit in London is $300.\n',
  'policies/expenses.md': '# Expenses\n\nMeals are covered up to $75 a day.\n',
};

const script = (write: Script['write']): Script => ({
  plan: () => JSON.stringify({ documents: ['policies/travel'], searches: ['hotel tax'] }),
  followup: () =>
    JSON.stringify({ gaps: ['meals'], documents: ['policies/expenses'], searches: ['meal tax'] }),
  write,
});

async function world() {
  const w = await fakeWeb(
    { 'hotel tax': ['/tax'], 'meal tax': ['/meals'] },
    {
      '/tax': { body: html('Hotel tax', '<p>London hotel tax is 20%.</p>') },
      '/meals': { body: html('Meals', '<p>Meal tax is 5%.</p>') },
    },
  );
  closers.push(w.server.close);
  const store = sqliteStoreNow(':memory:');
  const db = store.db;
  const base = (provider: ReturnType<typeof researchModel>): ResearchOptions => ({
    question: 'What are the limits?',
    store,
    contentDir,
    env: w.env,
    models: { provider, smallModel: 'small', largeModel: 'large' },
    runId: 'run-1',
    depth: 2,
    resumable: true,
  });
  const contentDir = contentFolder(docs);
  return { w, store, db, base };
}

/** A deep run that fails at its write, after both rounds were recorded. */
async function interrupted() {
  const started = await world();
  const first = researchModel(
    script(() => {
      throw new Error('the network is gone');
    }),
  );
  const failed = await runResearch(started.base(first)).catch((e: unknown) => e);
  return { ...started, first, failed };
}

describe('a resumed research run', () => {
  it('takes the plans, searches, sources and facts it recorded, and pays only for the write', async () => {
    const { w, store, db, base, first, failed } = await interrupted();
    expect(failed).toBeInstanceOf(InterruptedRun);
    expect(failed).toMatchObject({ run: 1, exitCode: 1 });
    expect((failed as Error).message).toMatch(/^The write step failed: the network is gone/);
    expect(stepsOf(first.calls).join(' ')).toBe('plan extract extract followup extract extract write');
    expect(await store.runs.list()).toEqual([expect.objectContaining({ id: 1, status: 'unfinished' })]);

    const second = researchModel(script(() => 'Hotels up to $300 [1]; meals $75 [3].'));
    const result = await runResearch({ ...base(second), runId: 'another-id', resume: 1 });
    expect(stepsOf(second.calls)).toEqual(['write']);
    // The write saw every source's facts, numbered as the first attempt numbered them.
    expect(second.calls[0]!.prompt).toMatch(
      /\[1\] Travel[\s\S]*\[2\] Hotel tax[\s\S]*\[3\] Expenses[\s\S]*\[4\] Meals/,
    );
    expect(result.sources.map((s) => s.title)).toEqual(['Travel', 'Hotel tax', 'Expenses', 'Meals']);
    expect(result.rounds).toBe(2);
    expect(result.id).toBe(1);
    expect(w.answered.map((a) => a.query)).toEqual(['hotel tax', 'meal tax']);
    expect([w.hits.get('/tax'), w.hits.get('/meals')]).toEqual([1, 1]);
    // One ledger id for both attempts; the result counts them all (the failed write billed nothing).
    const ledger = db.prepare('SELECT DISTINCT run_id FROM usage_ledger').pluck().all();
    expect(ledger).toEqual(['run-1']);
    expect(result.usage.calls).toBe(first.calls.length - 1 + 1);
    expect(await store.runs.list()).toEqual([expect.objectContaining({ id: 1, status: 'done' })]);
  });

  it('a run that fails before its plan is made leaves nothing, and its error is its own', async () => {
    const { store, base } = await world();
    const model = researchModel({
      plan: () => {
        throw new Error('the model server went away');
      },
    });
    const failed = await runResearch(base(model)).catch((e: unknown) => e);
    expect(failed).not.toBeInstanceOf(InterruptedRun);
    expect(await store.runs.list()).toEqual([]);
  });

  it('a finished run is kept done, with no progress left behind', async () => {
    const { store, db, base } = await world();
    const result = await runResearch(base(researchModel(script(() => 'Hotels up to $300 [1].'))));
    expect(result.id).toBe(1);
    expect(await store.runs.list()).toEqual([expect.objectContaining({ id: 1, status: 'done' })]);
    expect(db.prepare('SELECT COUNT(*) FROM run_sources').pluck().get()).toBe(0);
  });

  it('replays recorded web sources even with no search service set up now', async () => {
    const { base } = await interrupted();
    const second = researchModel(script(() => 'Hotels up to $300 [1].'));
    const result = await runResearch({ ...base(second), env: {}, resume: 1 });
    expect(result.sources.map((s) => s.title)).toEqual(['Travel', 'Hotel tax', 'Expenses', 'Meals']);
    expect(stepsOf(second.calls)).toEqual(['write']);
  });

  it('a progress write that fails is said once, at its step, and the run still answers', async () => {
    const { store, base } = await world();
    // Sources cannot be recorded (as when the server went away): the plan was, before them.
    store.progress.recordSource = async () => {
      throw new Error('the connection was lost');
    };
    const notices: string[] = [];
    const model = researchModel(script(() => 'Hotels up to $300 [1].'));
    const result = await runResearch({
      ...base(model),
      onEvent: (e) => e.type === 'notice' && notices.push(e.message),
    });
    expect(result.answer).toBe('Hotels up to $300 [1].');
    expect(notices.filter((n) => n.startsWith("This run's progress"))).toEqual([
      "This run's progress could not be recorded (the connection was lost): only what was recorded before can be resumed if it is interrupted.",
    ]);
    // The run answered, so it is kept done; nothing was half-recorded.
    expect(await store.runs.list()).toEqual([expect.objectContaining({ id: 1, status: 'done' })]);
  });
});
