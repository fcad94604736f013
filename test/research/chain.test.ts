import { afterEach, describe, expect, it } from 'vitest';
import { AbortedError } from '../../src/errors.js';
import { type ResearchEvent, type ResearchOptions, runResearch } from '../../src/research/pipeline.js';
import { contentFolder, fakeWeb, researchModel, type Script, stepsOf } from '../support/research-world.js';
import { sqliteStoreNow } from '../support/stores.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

async function web(results: Record<string, string[]>, pages: Parameters<typeof fakeWeb>[1]) {
  const w = await fakeWeb(results, pages);
  closers.push(w.server.close);
  return w;
}

const html = (title: string, body: string) =>
  `<html><head><title>${title}</title></head><body><main><h1>${title}</h1>${body}</main></body></html>`;

const docs = {
  'policies/refunds.md': '# Refunds\n\nA support agent can refund up to $200 without approval.\n',
  'policies/travel.md': '# Travel\n\nThe nightly hotel limit in London is $300.\n',
  'policies/expenses.md': '# Expenses\n\nMeals are covered up to $75 a day.\n',
  'policies/security.md': '# Security\n\nLaptops are encrypted.\n',
};

function run(script: Script, extra: Partial<ResearchOptions> & { env?: NodeJS.ProcessEnv } = {}) {
  const model = researchModel(script);
  const store = sqliteStoreNow(':memory:');
  const events: ResearchEvent[] = [];
  const promise = runResearch({
    question: 'What are the limits?',
    store,
    contentDir: extra.contentDir ?? contentFolder(docs),
    env: extra.env ?? {},
    models: { provider: model, smallModel: 'small', largeModel: 'large' },
    runId: 'run-1',
    onEvent: (e) => events.push(e),
    ...extra,
  });
  return { model, store, events, promise };
}

const plan =
  (documents: string[], searches: string[] = []) =>
  () =>
    JSON.stringify({ documents, searches });

describe('pipelined collection and extraction', () => {
  it('extracts documents at once while a slow page is still loading; numbering follows the plan', async () => {
    const w = await web(
      { 'slow topic': ['/slow'] },
      { '/slow': { body: html('Slow page', '<p>The slow page says the limit is $500.</p>'), delay: 600 } },
    );
    const { model, promise } = run(
      { plan: plan(['policies/refunds', 'policies/travel'], ['slow topic']) },
      { env: w.env },
    );
    const result = await promise;
    const slowServed = w.served.find((s) => s.path === '/slow')!.at;
    const docExtractions = model.calls.filter((c) => c.step === 'extract' && /policies/.test(c.prompt));
    expect(docExtractions).toHaveLength(2);
    for (const c of docExtractions) expect(c.end!).toBeLessThan(slowServed);
    expect(result.sources.map((s) => [s.n, s.slug ?? s.location])).toEqual([
      [1, 'policies/refunds'],
      [2, 'policies/travel'],
      [3, `${w.server.url}/slow`],
    ]);
    const writePrompt = model.calls.find((c) => c.step === 'write')!.prompt;
    expect(writePrompt).toMatch(/\[3\] Slow page \(http.*\/slow\)\n- Slow page/);
  });

  it('sends nine sources to extraction in one wave (no extraction waits for another to finish)', async () => {
    const results: Record<string, string[]> = {};
    const pages: Parameters<typeof fakeWeb>[1] = {};
    for (const q of ['a', 'b', 'c']) {
      results[q] = [`/${q}1`, `/${q}2`, `/${q}3`];
      for (const i of [1, 2, 3])
        pages[`/${q}${i}`] = { body: html(`Page ${q}${i}`, `<p>Fact ${q}${i}.</p>`) };
    }
    const w = await web(results, pages);
    const { model, promise } = run(
      {
        plan: plan(['policies/refunds', 'policies/travel', 'policies/expenses'], ['a', 'b', 'c']),
        // Each extraction waits (up to 5 s) until nine are in flight: only a chain that holds one back fails.
        extractBarrier: 9,
      },
      { env: w.env },
    );
    const result = await promise;
    expect(result.sources).toHaveLength(9);
    expect(model.maxInFlight).toBe(9);
    // Two results per search by default, the third never fetched.
    expect(w.hits.get('/a3')).toBeUndefined();
    expect(result.sources.filter((s) => s.kind === 'web').map((s) => new URL(s.location).pathname)).toEqual([
      '/a1',
      '/a2',
      '/b1',
      '/b2',
      '/c1',
      '/c2',
    ]);
  });

  it('reads a URL that two searches return once, after normalising fragments, utm_* and trailing slashes', async () => {
    const w = await web(
      { one: ['/shared/', '/only-one'], two: ['/shared?utm_source=x#top', '/only-two'] },
      {
        '/shared': { body: html('Shared', '<p>Shared fact.</p>') },
        '/shared/': { body: html('Shared', '<p>Shared fact.</p>') },
        '/only-one': { body: html('One', '<p>One fact.</p>') },
        '/only-two': { body: html('Two', '<p>Two fact.</p>') },
      },
    );
    const { promise } = run({ plan: plan([], ['one', 'two']) }, { env: w.env });
    const result = await promise;
    const paths = result.sources.map((s) => new URL(s.location).pathname);
    expect(paths).toEqual(['/shared/', '/only-one', '/only-two']);
    expect((w.hits.get('/shared') ?? 0) + (w.hits.get('/shared/') ?? 0)).toBe(1);
  });

  it('gives a table its header and rows, cells of a row on one line, in the extraction prompt', async () => {
    const w = await web(
      { tiers: ['/tiers'] },
      {
        '/tiers': {
          body: html(
            'Approval tiers',
            '<p>Refund approval depends on the tier of the person approving it, as listed below.</p><table><tr><th>Tier</th><th>Limit</th></tr><tr><td>Agent</td><td>$200</td></tr></table>',
          ),
        },
      },
    );
    const { model, promise } = run({ plan: plan([], ['tiers']) }, { env: w.env });
    await promise;
    const prompt = model.calls.find((c) => c.step === 'extract')!.prompt;
    expect(prompt).toMatch(/\|\s*Tier\s*\|\s*Limit\s*\|/);
    expect(prompt).toMatch(/\|\s*Agent\s*\|\s*\$200\s*\|/);
  });
});

describe('deep research', () => {
  it('runs two rounds with follow-ups, never reading a source twice, every call in the ledger', async () => {
    const w = await web(
      { 'hotel tax': ['/tax', '/tax2'], 'meal tax': ['/tax', '/meals'] },
      {
        '/tax': { body: html('Hotel tax', '<p>London hotel tax is 20%.</p>') },
        '/tax2': { body: html('Tax 2', '<p>More on tax.</p>') },
        '/meals': { body: html('Meals', '<p>Meal tax is 5%.</p>') },
      },
    );
    const followups: string[] = [];
    const { model, store, events, promise } = run(
      {
        plan: plan(['policies/travel'], ['hotel tax']),
        followup: (prompt) => {
          followups.push(prompt);
          return JSON.stringify({
            gaps: ['meal tax'],
            documents: ['policies/travel', 'policies/expenses'],
            searches: ['hotel tax', 'meal tax'],
          });
        },
      },
      { env: w.env, depth: 2 },
    );
    const result = await promise;
    expect(result.rounds).toBe(2);
    expect(stepsOf(model.calls)).toEqual([
      'plan',
      'extract',
      'extract',
      'extract',
      'followup',
      'extract',
      'extract',
      'write',
    ]);
    expect(followups[0]).toMatch(/Facts gathered so far/);
    expect(followups[0]).toMatch(/\[1\] Travel/);
    // Already read: policies/travel, /tax; the repeated search is not run again.
    expect(result.sources.map((s) => s.slug ?? new URL(s.location).pathname)).toEqual([
      'policies/travel',
      '/tax',
      '/tax2',
      'policies/expenses',
      '/meals',
    ]);
    expect(w.hits.get('/tax')).toBe(1);
    const extracted = model.calls
      .filter((c) => c.step === 'extract')
      .map((c) => /^Source: .*\((.*)\)/m.exec(c.prompt)![1]);
    expect(new Set(extracted).size).toBe(extracted.length);
    expect(events.some((e) => e.type === 'step' && e.name === 'followup' && e.round === 2)).toBe(true);
    const steps = store.db
      .prepare('SELECT step FROM usage_ledger WHERE run_id = ? ORDER BY id')
      .pluck()
      .all('run-1');
    expect(steps.filter((s) => s === 'followup')).toHaveLength(1);
    expect(steps).toHaveLength(model.calls.length);
  });

  it('stops when the follow-up proposes nothing new', async () => {
    const { model, events, promise } = run(
      {
        plan: plan(['policies/travel']),
        followup: () => '{"gaps": [], "documents": ["policies/travel"], "searches": []}',
      },
      { depth: 4 },
    );
    const result = await promise;
    expect(result.rounds).toBe(1);
    expect(stepsOf(model.calls)).toEqual(['plan', 'extract', 'followup', 'write']);
    expect(events.some((e) => e.type === 'notice' && /Nothing new to read/.test(e.message))).toBe(true);
  });

  it('stops at --max-sources, saying what was skipped', async () => {
    const { result, events } = await (async () => {
      const r = run(
        {
          plan: plan(['policies/refunds', 'policies/travel']),
          followup: () => '{"documents": ["policies/expenses", "policies/security"], "searches": []}',
        },
        { depth: 3, maxSources: 3 },
      );
      return { result: await r.promise, events: r.events };
    })();
    expect(result.sources.map((s) => s.slug)).toEqual([
      'policies/refunds',
      'policies/travel',
      'policies/expenses',
    ]);
    expect(result.reports).toContainEqual(
      expect.objectContaining({
        label: 'policies/security',
        status: 'skipped',
        detail: '--max-sources reached',
      }),
    );
    expect(events.filter((e) => e.type === 'step' && e.name === 'followup')).toHaveLength(1);
  });

  it('writes from what was gathered when the follow-up is not JSON twice', async () => {
    const { model, events, promise } = run(
      { plan: plan(['policies/travel']), followup: () => 'I think we are done.' },
      { depth: 2 },
    );
    const result = await promise;
    expect(stepsOf(model.calls)).toEqual(['plan', 'extract', 'followup', 'followup', 'write']);
    expect(result.answer).toBe('An answer [1].');
    expect(
      events.some((e) => e.type === 'notice' && /follow-up reply was not usable JSON twice/.test(e.message)),
    ).toBe(true);
  });
});

describe('reports, grounding and history', () => {
  it('asks for a structured report with a larger output cap and streams it', async () => {
    const report =
      '# Limits\n\nThe hotel limit is $300 [1].\n\n## Hotels\n\n- London: $300 a night [1].\n\n## Gaps and caveats\n\nNone.';
    const { model, events, promise } = run(
      { plan: plan(['policies/travel']), write: () => report },
      { report: true },
    );
    const result = await promise;
    const write = model.calls.find((c) => c.step === 'report')!;
    expect(write.request.system).toMatch(/Gaps and caveats/);
    expect(write.request.maxTokens).toBeGreaterThan(16_384);
    expect(
      events
        .filter((e) => e.type === 'text')
        .map((e) => (e as { delta: string }).delta)
        .join(''),
    ).toBe(report);
    expect(result.answer).toBe(report);
    expect(result.grounding.unsupported).toEqual([]);
  });

  it('flags a sentence whose number is not in its cited source, and passes correct ones', async () => {
    const { promise } = run({
      plan: plan(['policies/travel', 'policies/refunds']),
      write: () =>
        'The London hotel limit is $300 a night [1]. Agents refund up to $250 without approval [2]. Meals are separate.',
    });
    const result = await promise;
    expect(result.grounding.checked).toBe(2);
    expect(result.grounding.unsupported).toEqual([
      { sentence: expect.stringMatching(/^Agents refund up to \$250/), cites: [2], missing: ['$250'] },
    ]);
  });

  it('keeps every finished run, and nothing of a cancelled one', async () => {
    const ok = run({ plan: plan(['policies/travel']) });
    const result = await ok.promise;
    expect(result.id).toBeGreaterThan(0);
    expect((await ok.store.runs.list({})).map((r) => r.question)).toEqual(['What are the limits?']);

    const controller = new AbortController();
    const cancelled = run(
      {
        plan: () => {
          controller.abort();
          return '{"documents": ["policies/travel"], "searches": []}';
        },
      },
      { signal: controller.signal },
    );
    await expect(cancelled.promise).rejects.toBeInstanceOf(AbortedError);
    expect(await cancelled.store.runs.list({})).toEqual([]);
  });
});

describe('what goes wrong stays small', () => {
  it('reads a page once when another result redirects to it', async () => {
    const w = await web(
      { one: ['/page?utm_source=x#top'], two: ['/short-link'] },
      {
        '/page': { body: html('The page', '<p>The page says the limit is $300.</p>') },
        '/short-link': { body: '', location: '/page' },
      },
    );
    const { result, promise } = await (async () => {
      const r = run({ plan: plan([], ['one', 'two']) }, { env: w.env });
      return { result: await r.promise, promise: r.promise };
    })();
    await promise;
    expect(result.sources.map((s) => new URL(s.location).pathname)).toEqual(['/page']);
    expect(w.hits.get('/page')).toBe(2); // read once, and once more behind the redirect, then dropped
    expect(result.reports).toContainEqual(
      expect.objectContaining({ status: 'skipped', detail: expect.stringMatching(/already collected/) }),
    );
  });

  it('a source whose extraction fails is noted and left uncited; the run still answers', async () => {
    const { model, events, promise } = run({
      plan: plan(['policies/refunds', 'policies/travel']),
      extract: (prompt) => {
        if (prompt.includes('Travel')) throw new Error('context length exceeded');
        return '- Agents refund up to $200.';
      },
    });
    const result = await promise;
    expect(result.answer).toBe('An answer [1].');
    expect(
      events.some(
        (e) => e.type === 'notice' && /No facts from \[2\] Travel: .*context length/.test(e.message),
      ),
    ).toBe(true);
    expect(model.calls.find((c) => c.step === 'write')!.prompt).toMatch(
      /\[2\] Travel .*\n\(no facts: extraction failed/,
    );
  });

  it('falls back to the best local documents when nothing the plan chose could be read', async () => {
    const w = await web({}, {});
    const env = { ...w.env, BRAVE_SEARCH_URL: `${w.server.url}/broken-search` };
    const { events, promise } = run(
      { plan: plan([], ['hotel limits']) },
      { env, question: 'What is the hotel limit in London?' },
    );
    const result = await promise;
    expect(result.sources.map((s) => s.slug)).toContain('policies/travel');
    expect(
      events.some((e) => e.type === 'notice' && /Nothing the plan chose could be read/.test(e.message)),
    ).toBe(true);
  });

  it('sends no search once --max-sources is reached', async () => {
    const w = await web({ more: ['/x'] }, { '/x': { body: html('X', '<p>x</p>') } });
    const { result, promise } = await (async () => {
      const r = run(
        { plan: plan(['policies/refunds', 'policies/travel'], ['more']) },
        { env: w.env, maxSources: 2 },
      );
      return { result: await r.promise, promise: r.promise };
    })();
    await promise;
    expect(result.sources).toHaveLength(2);
    expect(w.server.requests.some((r) => r.url.startsWith('/search'))).toBe(false);
    expect(result.reports).toContainEqual(
      expect.objectContaining({ label: 'search "more"', status: 'skipped' }),
    );
  });

  it('keeps the mark of an answer cut off at the output limit, and ignores headings and gaps in the citation check', async () => {
    const report =
      '# Limits in 2026\n\n## 1. Hotels\n\nThe London limit is $300 [1].\n\n## Gaps and caveats\n\nThe sources say nothing about 2027 or taxes abroad.';
    const { events, promise } = run(
      { plan: plan(['policies/travel']), write: () => report, writeCutOff: true },
      { report: true },
    );
    const result = await promise;
    expect(result.truncated).toBe(true);
    expect(
      events.some((e) => e.type === 'notice' && /report was cut off at the output limit/.test(e.message)),
    ).toBe(true);
    expect(result.citations.uncited).toEqual([]);
  });
});

describe('a database server that goes away during a run', () => {
  it('keeps the calls made meanwhile and records them at the end; says how many it could not', async () => {
    const { StoreError } = await import('../../src/store/errors.js');
    for (const back of [true, false]) {
      const { store, events, promise } = run({ plan: plan(['policies/refunds', 'policies/travel']) });
      const record = store.ledger.record.bind(store.ledger);
      let calls = 0;
      let away = true;
      // The plan is recorded; the two extractions meet a lost connection; the write finds it back (or not).
      store.ledger.record = async (entry, prices) => {
        calls++;
        if (calls >= 2 && calls <= 3) throw new StoreError('offline', 'postgres://db', 'lost');
        if (calls > 3 && !back && away) throw new StoreError('offline', 'postgres://db', 'lost');
        return record(entry, prices);
      };
      const result = await promise;
      away = false;
      const totals = await store.ledger.runTotals('run-1');
      if (back) {
        expect(totals.calls).toBe(result.usage.calls);
        expect(events.filter((e) => e.type === 'notice' && /could not be recorded/.test(e.message))).toEqual(
          [],
        );
      } else {
        expect(totals.calls).toBe(1);
        expect(events).toContainEqual({
          type: 'notice',
          message: `${result.usage.calls - 1} model call(s) made while the database server was away could not be recorded in the ledger.`,
        });
      }
    }
  });
});
