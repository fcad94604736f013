import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/errors.js';
import { WebError } from '../../../src/web/errors.js';
import { searchEndpoint } from '../../../src/web/search/config.js';
import { resolveSearch, SEARCH_SETUP_HINT, searchWeb } from '../../../src/web/search/index.js';
import { json, startFakeServer } from '../../support/fake-server.js';

const configError = (fn: () => unknown): ConfigError => {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError');
};

describe('resolveSearch: which backend', () => {
  it('picks the first configured in the order Brave, Tavily, SearXNG', () => {
    const all = { BRAVE_SEARCH_KEY: 'b', TAVILY_API_KEY: 't', SEARXNG_URL: 'http://searx.lan' };
    expect(resolveSearch(all)?.backend).toBe('brave');
    expect(resolveSearch({ ...all, BRAVE_SEARCH_KEY: '' })?.backend).toBe('tavily');
    expect(resolveSearch({ SEARXNG_URL: 'http://searx.lan', TAVILY_API_KEY: '  ' })?.backend).toBe('searxng');
    expect(resolveSearch({ BRAVE_SEARCH_URL: 'http://x.lan' })?.backend).toBeUndefined();
    expect(resolveSearch({})?.backend).toBeUndefined();
  });

  it('follows AGENT_SEARCH, in any case', () => {
    const all = { BRAVE_SEARCH_KEY: 'b', TAVILY_API_KEY: 't', SEARXNG_URL: 'http://searx.lan' };
    expect(resolveSearch({ ...all, AGENT_SEARCH: 'searxng' })?.backend).toBe('searxng');
    expect(resolveSearch({ ...all, AGENT_SEARCH: ' Tavily ' })?.backend).toBe('tavily');
    expect(resolveSearch({ ...all, AGENT_SEARCH: '' })?.backend).toBe('brave');
  });

  it('refuses an unknown AGENT_SEARCH, or one naming a backend that is not configured', () => {
    expect(
      configError(() => resolveSearch({ BRAVE_SEARCH_KEY: 'b', AGENT_SEARCH: 'bing' })?.backend).message,
    ).toBe(
      'AGENT_SEARCH is "bing", which is not a search backend: use brave, tavily or searxng, or leave it unset to use the first one configured.',
    );
    expect(
      configError(() => resolveSearch({ BRAVE_SEARCH_KEY: 'b', AGENT_SEARCH: 'tavily' })?.backend).message,
    ).toBe('AGENT_SEARCH picks tavily, but TAVILY_API_KEY is not set: set it, or unset AGENT_SEARCH.');
    expect(configError(() => resolveSearch({ AGENT_SEARCH: 'searxng' })?.backend).message).toMatch(
      /SEARXNG_URL is not set/,
    );
    expect(configError(() => resolveSearch({ AGENT_SEARCH: 'bing' })?.backend).exitCode).toBe(2);
  });

  it('refuses a malformed address for the chosen backend', () => {
    expect(configError(() => resolveSearch({ SEARXNG_URL: 'searx.lan:8080' })?.backend).message).toBe(
      'SEARXNG_URL must be an http or https URL, not "searx.lan:8080".',
    );
    expect(configError(() => resolveSearch({ SEARXNG_URL: 'not a url' })?.backend).message).toBe(
      'SEARXNG_URL is not a URL: "not a url". Give the full address, e.g. https://host/.',
    );
    expect(
      configError(() => resolveSearch({ TAVILY_API_KEY: 'k', TAVILY_BASE_URL: '::' })?.backend).message,
    ).toMatch(/^TAVILY_BASE_URL is not a URL/);
    // Only the chosen backend's address matters.
    expect(resolveSearch({ BRAVE_SEARCH_KEY: 'b', SEARXNG_URL: 'not a url' })?.backend).toBe('brave');
  });

  it('uses the public services unless overridden, and {base}/search however the base is written', () => {
    expect(searchEndpoint('brave', {}).href).toBe('https://api.search.brave.com/res/v1/web/search');
    expect(searchEndpoint('tavily', {}).href).toBe('https://api.tavily.com/search');
    for (const base of ['https://s.lan/searx', 'https://s.lan/searx/', 'https://s.lan/searx/search']) {
      expect(searchEndpoint('searxng', { SEARXNG_URL: base }).href).toBe('https://s.lan/searx/search');
    }
  });
});

describe('resolveSearch: what a search needs', () => {
  it('gives the backend, its endpoint and its key, read once', () => {
    expect(resolveSearch({ TAVILY_API_KEY: ' t ', TAVILY_BASE_URL: 'http://t.lan/v1/' })).toEqual({
      backend: 'tavily',
      endpoint: new URL('http://t.lan/v1/search'),
      key: 't',
    });
    expect(resolveSearch({ SEARXNG_URL: 'http://searx.lan' })).toEqual({
      backend: 'searxng',
      endpoint: new URL('http://searx.lan/search'),
    });
  });
});

describe('searchWeb', () => {
  let server: Awaited<ReturnType<typeof startFakeServer>>;
  beforeEach(async () => {
    server = await startFakeServer();
  });
  afterEach(() => server.close());

  it('sends the search to the chosen backend only', async () => {
    server.queue.push(json(200, { results: [{ url: 'https://a.example/', title: 'A', content: 'a' }] }));
    const env = {
      BRAVE_SEARCH_KEY: 'b',
      BRAVE_SEARCH_URL: `${server.url}/brave`,
      TAVILY_API_KEY: 't',
      TAVILY_BASE_URL: `${server.url}/tavily`,
      SEARXNG_URL: `${server.url}/searx`,
      AGENT_SEARCH: 'searxng',
    };
    expect(await searchWeb('q', 3, resolveSearch(env))).toEqual([
      { title: 'A', url: 'https://a.example/', snippet: 'a' },
    ]);
    expect(server.requests.map((r) => new URL(r.url, server.url).pathname)).toEqual(['/searx/search']);

    server.queue.push(json(200, { results: [] }));
    await searchWeb('q', 3, resolveSearch({ ...env, AGENT_SEARCH: 'tavily' }));
    expect(server.requests[1]).toMatchObject({ method: 'POST', url: '/tavily/search' });
  });

  it('uses the configuration it was given: the environment is not read again per search', async () => {
    server.queue.push(json(200, {}), json(200, {}));
    const env: NodeJS.ProcessEnv = { BRAVE_SEARCH_KEY: 'b', BRAVE_SEARCH_URL: `${server.url}/first` };
    const search = resolveSearch(env);
    await searchWeb('q', 1, search);
    env.BRAVE_SEARCH_URL = `${server.url}/second`;
    env.BRAVE_SEARCH_KEY = 'changed';
    await searchWeb('q', 1, search);
    expect(server.requests.map((r) => new URL(r.url, server.url).pathname)).toEqual(['/first', '/first']);
    expect(server.requests.map((r) => r.headers['x-subscription-token'])).toEqual(['b', 'b']);
  });

  it('asks each backend for between 1 and 20 results', async () => {
    server.queue.push(json(200, {}), json(200, {}));
    const env = { BRAVE_SEARCH_KEY: 'b', BRAVE_SEARCH_URL: server.url };
    await searchWeb('q', 50, resolveSearch(env));
    await searchWeb('q', 0, resolveSearch(env));
    expect(server.requests.map((r) => new URL(r.url, server.url).searchParams.get('count'))).toEqual([
      '20',
      '1',
    ]);
  });

  it('says how to configure search when nothing is', async () => {
    const error = await searchWeb('q', 3, undefined).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WebError);
    expect((error as Error).message).toBe(`Web search is not configured: ${SEARCH_SETUP_HINT}.`);
    expect(SEARCH_SETUP_HINT).toBe('set BRAVE_SEARCH_KEY, TAVILY_API_KEY or SEARXNG_URL');
  });
});
