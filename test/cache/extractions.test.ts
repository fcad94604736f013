import { afterEach, describe, expect, it } from 'vitest';
import { parseDuration } from '../../src/cache/duration.js';
import { extractionCache } from '../../src/cache/extractions.js';
import { normaliseQuestion } from '../../src/cache/keys.js';
import { type ResearchEvent, runResearch } from '../../src/research/pipeline.js';
import type { SourceReport } from '../../src/research/sources.js';
import type { Store } from '../../src/store/store.js';
import { contentFolder, fakeWeb, researchModel, type Script } from '../support/research-world.js';
import { sqliteStore } from '../support/stores.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

describe('durations', () => {
  it('reads 30m, 12h, 7d, 2w, 45s and 0; refuses the rest', async () => {
    expect(parseDuration('30m')).toBe(30 * 60_000);
    expect(parseDuration('12h')).toBe(12 * 3_600_000);
    expect(parseDuration(' 7d ')).toBe(7 * 86_400_000);
    expect(parseDuration('2w')).toBe(14 * 86_400_000);
    expect(parseDuration('45s')).toBe(45_000);
    expect(parseDuration('0')).toBe(0);
    for (const bad of ['', '30', '-1d', '1.5h', '7x', 'd', '1 day'])
      expect(parseDuration(bad)).toBeUndefined();
  });
});

describe('the extraction cache', () => {
  it('keys by source, normalised question (case kept), model and prompt version', async () => {
    expect(normaliseQuestion('  What   is\tthe\nlimit? ')).toBe('What is the limit?');
    const store = await sqliteStore(':memory:');
    const cache = (question: string, model = 'large', promptVersion = 1) =>
      extractionCache(store.cache, { question, model, promptVersion });
    await cache('What is the limit?').put('Source: A', '- A fact');
    expect(await cache('  What is  the limit?').get('Source: A')).toBe('- A fact');
    expect(await cache('What is the LIMIT?').get('Source: A')).toBeUndefined();
    expect(await cache('What is the limit?').get('Source: B')).toBeUndefined();
    expect(await cache('What is the limit?', 'other').get('Source: A')).toBeUndefined();
    expect(await cache('What is the limit?', 'large', 2).get('Source: A')).toBeUndefined();
    // --refresh looks nothing up, and still stores.
    const fresh = extractionCache(store.cache, {
      question: 'Q',
      model: 'large',
      promptVersion: 1,
      refresh: true,
    });
    await fresh.put('Source: C', '- C');
    expect(await fresh.get('Source: C')).toBeUndefined();
    expect(await cache('Q').get('Source: C')).toBe('- C');
  });

  it('is a miss, never an error, on a database without its table', async () => {
    const store = await sqliteStore(':memory:');
    const db = store.db;
    db.exec('DROP TABLE extraction_cache');
    const cache = extractionCache(store.cache, { question: 'Q', model: 'm', promptVersion: 1 });
    await expect(cache.put('S', '- fact')).resolves.toBeUndefined();
    expect(await cache.get('S')).toBeUndefined();
  });
});

/** A run of the chain over a document and two web pages, on the given database. */
async function run(
  store: Store,
  script: Script,
  env: NodeJS.ProcessEnv,
  dir: string,
  o: { refresh?: boolean; depth?: number } = {},
) {
  const model = researchModel(script);
  const reports: SourceReport[] = [];
  const result = await runResearch({
    question: 'What is the  limit?',
    store,
    contentDir: dir,
    env,
    models: { provider: model, smallModel: 'small', largeModel: 'large' },
    runId: `run-${Math.random()}`,
    refresh: o.refresh,
    depth: o.depth,
    onEvent: (e: ResearchEvent) => {
      if (e.type === 'source') reports.push(e.report);
    },
  });
  return { result, model, reports, steps: model.calls.map((c) => c.step) };
}

describe('research over cached sources', () => {
  it('a second run pays only plan and write: its sources say cached, the ledger has no extract call', async () => {
    const w = await fakeWeb(
      { limits: ['/a', '/b'] },
      {
        '/a': {
          body: '<html><head><title>Page A</title></head><body><main><p>The limit is $200.</p></main></body></html>',
        },
        '/b': {
          body: '<html><head><title>Page B</title></head><body><main><p>The cap is $300.</p></main></body></html>',
        },
      },
    );
    closers.push(w.server.close);
    const dir = contentFolder({ 'policy.md': '# Policy\n\nThe refund limit is $150.\n' });
    const script: Script = { plan: () => '{"documents": ["policy"], "searches": ["limits"]}' };
    const store = await sqliteStore(':memory:');

    const first = await run(store, script, w.env, dir);
    expect(first.steps.filter((s) => s === 'extract')).toHaveLength(3);
    expect(first.reports.some((r) => r.cached)).toBe(false);
    const pagesServed = w.served.length;

    const second = await run(store, script, w.env, dir);
    expect(second.steps).toEqual(['plan', 'write']);
    expect(w.served.length).toBe(pagesServed);
    expect(second.reports.filter((r) => r.status === 'read').map((r) => r.cached)).toEqual([
      true,
      true,
      true,
    ]);
    expect(second.result.sources.map((s) => s.cached)).toEqual([true, true, true]);
    // The writer got the same notes as the first time.
    expect(second.model.calls.at(-1)!.prompt).toBe(first.model.calls.at(-1)!.prompt);
    const ledger = (await store.ledger.report({ by: 'model' })).totals;
    expect(ledger.calls).toBe(first.model.calls.length + 2);

    // --refresh reads and extracts everything again.
    const refreshed = await run(store, script, w.env, dir, { refresh: true });
    expect(refreshed.steps.filter((s) => s === 'extract')).toHaveLength(3);
    expect(w.served.length).toBe(pagesServed + 2);
    expect(refreshed.reports.some((r) => r.cached)).toBe(false);
  });

  it('does not keep an empty extraction: the next run extracts again', async () => {
    const dir = contentFolder({ 'policy.md': '# Policy\n\nThe refund limit is $150.\n' });
    const store = await sqliteStore(':memory:');
    const script: Script = {
      plan: () => '{"documents": ["policy"], "searches": []}',
      extract: () => '',
    };
    await run(store, script, {}, dir);
    const again = await run(store, { ...script, extract: undefined }, {}, dir);
    expect(again.steps).toEqual(['plan', 'extract', 'write']);
    expect(again.reports[0]?.cached).toBeUndefined();
  });
});
