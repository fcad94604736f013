import { describe, expect, it } from 'vitest';
import { type BatchOutcome, outcomeJson, runBatch } from '../../src/research/run/batch.js';
import { parseBatch } from '../../src/research/run/batch-file.js';
import type { Store } from '../../src/store/store.js';
import { billedModel, contentFolder, price } from '../support/research-world.js';
import { sqliteStoreNow } from '../support/stores.js';

// The batch runner in process, with a scripted model: which saved runs count as answered, and a
// spending cap that holds for the whole batch whatever its parallelism.

const docs = Object.fromEntries(
  Array.from({ length: 4 }, (_, i) => [
    `doc${i + 1}.md`,
    `# Doc ${i + 1}\n\nThe limit ${i + 1} is $${i + 100}.\n`,
  ]),
);
const contentDir = contentFolder(docs);

function batch(text: string, o: { maxCostUsd?: number; parallel?: number; store?: Store } = {}) {
  const { base, provider } = billedModel(Object.keys(docs).map((d) => d.slice(0, -3)));
  const outcomes: BatchOutcome[] = [];
  let spent = 0;
  const promise = runBatch({
    entries: parseBatch(text),
    parallel: o.parallel,
    base: {
      store: o.store ?? sqliteStoreNow(),
      contentDir,
      env: {},
      models: { provider, smallModel: 'small', largeModel: 'large' },
      userPrices: { small: price(1, 10), large: price(1, 10) },
      maxCostUsd: o.maxCostUsd,
    },
    onSpend: (cost) => {
      spent += cost ?? 0;
    },
    onOutcome: (outcome) => outcomes.push(outcome),
  });
  return { model: base, outcomes, promise, spent: () => spent };
}

const savedResult = (question: string, extra: Record<string, unknown>) => ({
  question,
  mode: 'model',
  answer: 'Saved [1].',
  costUsd: 0,
  result: { question, mode: 'model', answer: 'Saved [1].', ...extra },
});

describe('a batch', () => {
  it('skips a question saved with the same settings, in any key order, and no other', async () => {
    const store = sqliteStoreNow(':memory:');
    // The same settings, written in another order: answered.
    await store.runs.save(
      savedResult('Same', {
        settings: { report: false, maxSources: 20, perSearch: 2, breadth: 3, depth: 1 },
      }),
    );
    // Verified then, not now; a report then, an answer now; another mode: none of them answered.
    const settings = { depth: 1, breadth: 3, perSearch: 2, maxSources: 20, report: false };
    await store.runs.save(savedResult('Verified', { settings, verification: [] }));
    await store.runs.save(savedResult('Report', { settings: { ...settings, report: true } }));
    await store.runs.save({ ...savedResult('Extractive', { settings }), mode: 'extractive' });
    const { model, outcomes, promise } = batch(
      'Same\nVerified\nReport\nExtractive\n{"question": "Same", "depth": 2}',
      {
        store,
      },
    );
    expect(await promise).toEqual({ answered: 4, skipped: 1, failed: 0, cancelled: false });
    const skipped = outcomes.find((o) => o.status === 'skipped')!;
    expect(outcomeJson(skipped)).toMatchObject({ line: 1, skipped: true, id: 1, answer: 'Saved [1].' });
    const asked = model.calls
      .filter((c) => c.step === 'plan')
      .map((c) => /Question: (.*)/.exec(c.prompt)?.[1]);
    expect(asked.sort()).toEqual(['Extractive', 'Report', 'Same', 'Verified']);
  });

  it('never spends past --max-cost across the whole batch, whatever the cap and parallelism', async () => {
    const questions = Array.from({ length: 6 }, (_, i) => `What is limit ${i + 1}?`).join('\n');
    for (const [cap, parallel] of [
      [0.3, 1],
      [0.45, 3],
      [0.7, 2],
      [0.9, 6],
    ] as const) {
      const { outcomes, promise, spent } = batch(questions, { maxCostUsd: cap, parallel });
      const summary = await promise;
      expect(spent(), `cap ${cap}, --parallel ${parallel}`).toBeLessThanOrEqual(cap);
      expect(summary.answered, `cap ${cap}`).toBeGreaterThan(0);
      expect(summary.failed, `cap ${cap}`).toBeGreaterThan(0);
      for (const o of outcomes)
        if (o.status === 'failed') expect(o.error, `cap ${cap}`).toMatch(/cap \(--max-cost\)/);
    }
  });
});
