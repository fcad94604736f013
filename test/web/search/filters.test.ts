import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { searchBrave } from '../../../src/web/search/brave.js';
import { filterMiss, parseDomain, parsePeriod, type WebFilters } from '../../../src/web/search/filters.js';
import { resolveSearch, searchWeb } from '../../../src/web/search/index.js';
import { searchSearxng } from '../../../src/web/search/searxng.js';
import { searchTavily } from '../../../src/web/search/tavily.js';
import { json, startFakeServer } from '../../support/fake-server.js';

let server: Awaited<ReturnType<typeof startFakeServer>>;
beforeEach(async () => {
  server = await startFakeServer();
});
afterEach(() => server.close());

const NOW = new Date('2026-11-30T12:00:00Z');
const filters = (f: Partial<WebFilters>): WebFilters => ({ sites: [], excludeSites: [], ...f });
const params = () => [...new URL(server.requests[0]!.url, server.url).searchParams];

describe('Brave gets site: operators in q and freshness', () => {
  const env = () => ({ BRAVE_SEARCH_URL: `${server.url}/res/v1/web/search` });
  const brave = () => ({ backend: 'brave' as const, endpoint: new URL(env().BRAVE_SEARCH_URL), key: 'k' });

  it('one site, an excluded site and a named window', async () => {
    server.queue.push(json(200, { web: { results: [] } }));
    const f = filters({ sites: ['europa.eu'], excludeSites: ['blog.europa.eu'], recent: '7d' });
    await searchBrave('refund law', 5, brave(), undefined, f, NOW);
    expect(params()).toEqual([
      ['q', 'refund law site:europa.eu -site:blog.europa.eu'],
      ['count', '5'],
      ['freshness', 'pw'],
    ]);
  });

  it('several sites joined by OR, and a period with no named window as a date range', async () => {
    server.queue.push(json(200, { web: { results: [] } }));
    await searchBrave('q', 3, brave(), undefined, filters({ sites: ['a.com', 'b.org'], recent: '6m' }), NOW);
    expect(params()).toEqual([
      ['q', 'q (site:a.com OR site:b.org)'],
      ['count', '3'],
      ['freshness', '2026-05-30to2026-11-30'],
    ]);
  });

  it('1d, 1m and 1y as pd, pm and py; no filters, no extra parameters', async () => {
    for (let i = 0; i < 4; i++) server.queue.push(json(200, { web: { results: [] } }));
    for (const recent of ['1d', '1m', '1y'])
      await searchBrave('q', 1, brave(), undefined, filters({ recent }), NOW);
    await searchBrave('q', 1, brave(), undefined, undefined, NOW);
    expect(server.requests.map((r) => new URL(r.url, server.url).searchParams.get('freshness'))).toEqual([
      'pd',
      'pm',
      'py',
      null,
    ]);
    expect(new URL(server.requests[3]!.url, server.url).searchParams.get('q')).toBe('q');
  });

  it("keeps Brave's page_age as the published date", async () => {
    server.queue.push(
      json(200, {
        web: {
          results: [{ title: 't', url: 'https://a.com/', description: 'd', page_age: '2024-01-05T00:00:00' }],
        },
      }),
    );
    const [r] = await searchWeb('q', 1, resolveSearch({ BRAVE_SEARCH_KEY: 'k', ...env() }));
    expect(r).toEqual({ title: 't', url: 'https://a.com/', snippet: 'd', published: '2024-01-05T00:00:00' });
  });
});

describe('Tavily gets include_domains, exclude_domains and time_range or start_date', () => {
  const env = () => ({ TAVILY_BASE_URL: server.url });
  const tavily = () => resolveSearch({ ...env(), TAVILY_API_KEY: 'k' }) as Parameters<typeof searchTavily>[2];
  const base = {
    query: 'q',
    max_results: 4,
    search_depth: 'basic',
    topic: 'general',
    include_answer: false,
    include_raw_content: true,
    include_images: false,
  };

  it('a named window as time_range', async () => {
    server.queue.push(json(200, { results: [] }));
    const f = filters({ sites: ['europa.eu', 'gov.uk'], excludeSites: ['x.com'], recent: '1y' });
    await searchTavily('q', 4, tavily(), undefined, f, NOW);
    expect(server.requests[0]!.body).toEqual({
      ...base,
      include_domains: ['europa.eu', 'gov.uk'],
      exclude_domains: ['x.com'],
      time_range: 'year',
    });
  });

  it('another period as start_date; the published date is kept', async () => {
    server.queue.push(
      json(200, { results: [{ title: 't', url: 'https://a/', content: 'c', published_date: '2026-10-01' }] }),
    );
    const results = await searchTavily('q', 4, tavily(), undefined, filters({ recent: '90d' }), NOW);
    expect(server.requests[0]!.body).toEqual({ ...base, start_date: '2026-09-01' });
    expect(results[0]!.published).toBe('2026-10-01');
  });
});

describe('SearXNG gets site: operators in q and time_range', () => {
  const env = () => ({ SEARXNG_URL: server.url });
  const reply = () => json(200, { results: [], unresponsive_engines: [] });

  it('the smallest window that covers the period; none beyond a year', async () => {
    for (let i = 0; i < 4; i++) server.queue.push(reply());
    const search = resolveSearch(env())!;
    const periods = [
      filters({ sites: ['a.com'], recent: '3d' }),
      filters({ recent: '20d' }),
      filters({ excludeSites: ['b.com'], recent: '6m' }),
      filters({ recent: '2y' }),
    ];
    for (const f of periods) await searchSearxng('q', 5, search, undefined, f, NOW);
    const sent = server.requests.map((r) => [...new URL(r.url, server.url).searchParams]);
    expect(sent).toEqual([
      [
        ['q', 'q site:a.com'],
        ['format', 'json'],
        ['time_range', 'week'],
      ],
      [
        ['q', 'q'],
        ['format', 'json'],
        ['time_range', 'month'],
      ],
      [
        ['q', 'q -site:b.com'],
        ['format', 'json'],
        ['time_range', 'year'],
      ],
      [
        ['q', 'q'],
        ['format', 'json'],
      ],
    ]);
  });
});

describe('results outside the filters', () => {
  const r = (url: string, published?: string) => ({ title: '', url, snippet: '', published });

  it('a subdomain counts as its domain; a look-alike does not', () => {
    const f = filters({ sites: ['example.com'] });
    expect(filterMiss(r('https://docs.example.com/a'), f, NOW)).toBeUndefined();
    expect(filterMiss(r('https://example.com/'), f, NOW)).toBeUndefined();
    expect(filterMiss(r('https://badexample.com/'), f, NOW)).toBe('site');
    expect(filterMiss(r('https://example.com.evil.org/'), f, NOW)).toBe('site');
    const x = filters({ excludeSites: ['pinterest.com'] });
    expect(filterMiss(r('https://www.pinterest.com/pin/1'), x, NOW)).toBe('excluded');
    expect(filterMiss(r('https://pinterest.co.uk/'), x, NOW)).toBeUndefined();
  });

  it('a published date before the period is dropped; no date, or a date inside, is kept', () => {
    const f = filters({ recent: '6m' });
    expect(filterMiss(r('https://a.com/', '2026-05-01T00:00:00'), f, NOW)).toBe('old');
    expect(filterMiss(r('https://a.com/', '2026-07-01'), f, NOW)).toBeUndefined();
    expect(filterMiss(r('https://a.com/'), f, NOW)).toBeUndefined();
    expect(filterMiss(r('https://a.com/', 'not a date'), f, NOW)).toBeUndefined();
  });

  it('reads domains and periods as a user types them', () => {
    expect(parseDomain('https://WWW.Example.com/docs?x')).toBe('www.example.com');
    expect(parseDomain('example.com/path')).toBe('example.com');
    expect(parseDomain('*.example.com')).toBe('example.com');
    expect(parseDomain('not a domain')).toBeUndefined();
    expect(parseDomain('-bad.com')).toBeUndefined();
    expect(parsePeriod('7d')).toEqual({ amount: 7, unit: 'd' });
    expect(parsePeriod('6M')).toEqual({ amount: 6, unit: 'm' });
    for (const bad of ['0d', '7', 'd', '3w', '1.5y', '-1y', '7 days'])
      expect(parsePeriod(bad)).toBeUndefined();
  });
});
