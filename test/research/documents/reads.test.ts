import { afterEach, describe, expect, it } from 'vitest';
import { runResearch } from '../../../src/research/pipeline.js';
import { contentFolder, researchModel } from '../../support/research-world.js';
import { type StoreUnderTest, storesUnderTest } from '../../support/stores.js';

// A round's documents on either store: on a team database they are read at once (each read is a round
// trip to the server), on SQLite one after another; either way they are numbered in plan order, and the
// room for sources (--max-sources) is kept: a document past it is not read.

const docs = {
  'policies/refunds.md': '# Refunds\n\nA support agent can refund up to $200 without approval.\n',
  'policies/travel.md': '# Travel\n\nThe nightly hotel limit in London is $300.\n',
  'policies/expenses.md': '# Expenses\n\nMeals are covered up to $75 a day.\n',
};

for (const under of storesUnderTest())
  describe(`a round's documents on ${under.name}`, () => {
    let opened: StoreUnderTest | undefined;
    afterEach(async () => {
      await opened?.close();
      opened = undefined;
    });

    it('are numbered in plan order, and none past --max-sources is read', async () => {
      opened = under;
      const store = await under.open();
      const model = researchModel({
        plan: () =>
          JSON.stringify({
            documents: ['policies/travel', 'policies/refunds', 'policies/expenses'],
            searches: [],
          }),
      });
      const result = await runResearch({
        question: 'What are the limits?',
        store,
        contentDir: contentFolder(docs),
        env: {},
        models: { provider: model, smallModel: 'small', largeModel: 'large' },
        runId: 'run-reads',
        maxSources: 2,
      });
      expect(result.sources.map((s) => [s.n, s.slug])).toEqual([
        [1, 'policies/travel'],
        [2, 'policies/refunds'],
      ]);
      expect(result.reports.find((r) => r.label === 'policies/expenses')).toMatchObject({
        status: 'skipped',
      });
      const extracted = model.calls
        .filter((c) => c.step === 'extract')
        .map((c) => /# (\w+)/.exec(c.prompt)?.[1]);
      expect(extracted.sort()).toEqual(['Refunds', 'Travel']);
    });
  });
