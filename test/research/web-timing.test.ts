import { afterEach, describe, expect, it } from 'vitest';
import { runResearch } from '../../src/research/pipeline.js';
import { StepClock, timingsLine } from '../../src/research/run/timings.js';
import { contentFolder, fakeWeb, researchModel } from '../support/research-world.js';
import { sqliteStoreNow } from '../support/stores.js';

// Web sources wait only for what they need: a page is read the moment its own search (and the searches
// planned before it) are back, not when the slowest search is; and every run reports its time per step.

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

const page = (fact: string) => ({
  body: `<html><head><title>${fact}</title></head><body><p>${fact}</p></body></html>`,
});

describe('web sources in the chain', () => {
  it("reads the first search's pages while a later search is still out, numbering in plan order", async () => {
    const w = await fakeWeb(
      { quick: ['/quick'], slow: ['/slow'] },
      { '/quick': page('Quick fact: the limit is $5.'), '/slow': page('Slow fact: the limit is $7.') },
      { slow: 800 },
    );
    closers.push(w.server.close);
    const model = researchModel({ plan: () => '{"documents": [], "searches": ["quick", "slow"]}' });
    const result = await runResearch({
      question: 'What is the limit?',
      store: sqliteStoreNow(':memory:'),
      contentDir: contentFolder({}),
      env: w.env,
      models: { provider: model, smallModel: 'small', largeModel: 'large' },
    });
    const slowAnswered = w.answered.find((a) => a.query === 'slow')!.at;
    const quickServed = w.served.find((s) => s.path === '/quick')!.at;
    const quickExtraction = model.calls.find((c) => c.step === 'extract' && c.prompt.includes('Quick fact'))!;
    expect(quickServed).toBeLessThan(slowAnswered);
    expect(quickExtraction.start).toBeLessThan(slowAnswered);
    expect(result.sources.map((s) => s.title)).toEqual([
      'Quick fact: the limit is $5.',
      'Slow fact: the limit is $7.',
    ]);
    expect(result.sources.map((s) => s.n)).toEqual([1, 2]);
  });

  it('reports seconds per step, which add up to no more than the whole run', async () => {
    const model = researchModel({ plan: () => '{"documents": ["a"], "searches": []}', extractDelay: 50 });
    const result = await runResearch({
      question: 'What is the limit?',
      store: sqliteStoreNow(':memory:'),
      contentDir: contentFolder({ 'a.md': '# A\n\nThe limit is $5.\n' }),
      env: {},
      models: { provider: model, smallModel: 'small', largeModel: 'large' },
    });
    const t = result.timings!;
    expect(Object.keys(t)).toEqual(['index', 'plan', 'sources', 'write', 'total']);
    expect(t.sources).toBeGreaterThanOrEqual(0.05);
    const steps = t.index! + t.plan! + t.sources! + t.write!;
    expect(steps).toBeLessThanOrEqual(t.total + 0.004);
  });
});

describe('StepClock', () => {
  it('counts collection and extraction as one step and adds up rounds', async () => {
    const clock = new StepClock();
    for (const name of [
      'index',
      'plan',
      'sources',
      'extract',
      'followup',
      'sources',
      'extract',
      'write',
    ] as const)
      clock.observe({ type: 'step', name });
    const t = clock.finish();
    expect(Object.keys(t)).toEqual(['index', 'plan', 'sources', 'followup', 'write', 'total']);
    expect(timingsLine({ plan: 0.41, sources: 1.93, write: 0.4, total: 2.8 })).toBe(
      'plan 0.4 s, sources 1.9 s, write 0.4 s',
    );
  });
});
