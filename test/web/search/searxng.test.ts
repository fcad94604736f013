import { createServer } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebError } from '../../../src/web/errors.js';
import { resolveSearch, searchWeb } from '../../../src/web/search/index.js';
import { json, startFakeServer } from '../../support/fake-server.js';

let server: Awaited<ReturnType<typeof startFakeServer>>;
beforeEach(async () => {
  server = await startFakeServer();
});
afterEach(() => server.close());

const reply = (results: unknown[], extra: Record<string, unknown> = {}) =>
  json(200, {
    query: 'q',
    number_of_results: 0,
    results,
    answers: [],
    corrections: [],
    infoboxes: [],
    suggestions: [],
    unresponsive_engines: [],
    ...extra,
  });

describe('SearXNG backend', () => {
  it('sends GET {SEARXNG_URL}/search?q=…&format=json with no key, and reads results[] as plain text', async () => {
    server.queue.push(
      reply([
        {
          url: 'https://docs.example/refunds',
          title: 'Refund <span class="highlight">limits</span>',
          content: 'Agents may refund up to $200 &amp; supervisors $1,000.',
          engine: 'duckduckgo',
          engines: ['duckduckgo', 'brave'],
          score: 2.5,
          category: 'general',
        },
        { url: 'https://b.example/', title: 'No snippet', engine: 'bing' },
        { title: 'An entry without a URL is skipped', content: 'x' },
        { url: 'https://c.example/', title: 'Cut by count', content: 'c' },
      ]),
    );
    // An instance under a sub-path, given with a trailing slash.
    const results = await searchWeb(
      'refund limits',
      2,
      resolveSearch({ SEARXNG_URL: `${server.url}/searx/` }),
    );
    const req = server.requests[0]!;
    expect(req.method).toBe('GET');
    const url = new URL(req.url, server.url);
    expect(url.pathname).toBe('/searx/search');
    expect([...url.searchParams]).toEqual([
      ['q', 'refund limits'],
      ['format', 'json'],
    ]);
    expect(req.headers.authorization).toBeUndefined();
    expect(req.headers.accept).toBe('application/json');
    expect(results).toEqual([
      {
        title: 'Refund limits',
        url: 'https://docs.example/refunds',
        snippet: 'Agents may refund up to $200 & supervisors $1,000.',
      },
      { title: 'No snippet', url: 'https://b.example/', snippet: '' },
    ]);
  });

  it('sends credentials in SEARXNG_URL as basic auth, never in the URL', async () => {
    server.queue.push(reply([]));
    const base = new URL(server.url);
    base.username = 'me';
    base.password = 'p@ss word';
    expect(await searchWeb('x', 5, resolveSearch({ SEARXNG_URL: base.href }))).toEqual([]);
    const req = server.requests[0]!;
    expect(req.headers.authorization).toBe(`Basic ${Buffer.from('me:p@ss word').toString('base64')}`);
    expect(req.url).toBe('/search?q=x&format=json');
  });

  it('says exactly that JSON output is switched off when the instance answers 403', async () => {
    server.queue.push({ status: 403, headers: { 'content-type': 'text/html' }, body: '<h1>Forbidden</h1>' });
    const error = await searchWeb('x', 5, resolveSearch({ SEARXNG_URL: server.url })).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(WebError);
    expect((error as Error).message).toBe(
      `The SearXNG instance at ${server.url} has JSON output switched off (403): add json under ` +
        'search.formats in its settings.yml (formats: [html, json]) and restart it.',
    );
  });

  it('turns 401, 429, a 500, an HTML page and a wrong shape into one line each', async () => {
    server.queue.push(
      { status: 401, headers: { 'www-authenticate': 'Basic' }, body: 'Unauthorized' },
      { status: 429, headers: { 'content-type': 'text/plain' }, body: 'Too Many Requests' },
      { status: 500, headers: { 'content-type': 'text/html' }, body: '<html>Internal Server Error</html>' },
      {
        status: 200,
        headers: { 'content-type': 'text/html; charset=utf-8' },
        body: '<!DOCTYPE html>\n<html lang="en">',
      },
      json(200, { results: { url: 'https://a.example/' } }),
    );
    const messages: string[] = [];
    for (let i = 0; i < 5; i++) {
      messages.push(
        await searchWeb('x', 5, resolveSearch({ SEARXNG_URL: server.url })).then(
          String,
          (e: Error) => e.message,
        ),
      );
    }
    expect(messages).toEqual([
      `The SearXNG instance at ${server.url} asks for a login (401): give it in SEARXNG_URL as https://user:password@host/.`,
      `The SearXNG instance at ${server.url} is limiting requests (429): wait, or on your own instance turn its limiter off (server.limiter: false in settings.yml).`,
      'SearXNG search failed with HTTP 500.',
      'SearXNG answered with something that is not JSON (text/html, "<!DOCTYPE html> <html lang="en">…"): check that SEARXNG_URL is the address of a SearXNG instance.',
      'SearXNG answered in a shape that is not its documented one (results: Invalid input: expected array, received object).',
    ]);
  });

  it('says which engines failed when they all did, rather than "no results"', async () => {
    server.queue.push(
      reply([], {
        unresponsive_engines: [
          ['google', 'timeout'],
          ['duckduckgo', 'CAPTCHA'],
        ],
      }),
    );
    await expect(searchWeb('x', 5, resolveSearch({ SEARXNG_URL: server.url }))).rejects.toThrow(
      'SearXNG found nothing because its engines did not answer (google: timeout; duckduckgo: CAPTCHA).',
    );
  });

  it('names the address it could not reach', async () => {
    // A port that was just free: nothing listens there.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as { port: number };
    await new Promise((resolve) => probe.close(resolve));
    const error = await searchWeb('x', 5, resolveSearch({ SEARXNG_URL: `http://127.0.0.1:${port}` })).catch(
      (e: Error) => e,
    );
    expect(error).toBeInstanceOf(WebError);
    expect((error as Error).message).toBe(
      `Could not reach SearXNG at http://127.0.0.1:${port}/search: connect ECONNREFUSED 127.0.0.1:${port}.`,
    );
  });

  it('lets a cancellation through as it is', async () => {
    server.queue.push({ headers: { 'content-type': 'application/json' }, body: '{"results": [', hang: true });
    const controller = new AbortController();
    const pending = searchWeb('x', 5, resolveSearch({ SEARXNG_URL: server.url }), controller.signal).catch(
      (e: Error) => e,
    );
    setTimeout(() => controller.abort(), 50);
    const error = await pending;
    expect(error).not.toBeInstanceOf(WebError);
    expect((error as Error).name).toBe('AbortError');
  });
});
