import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebError } from '../../../src/web/errors.js';
import { resolveSearch, searchWeb } from '../../../src/web/search/index.js';
import { json, startFakeServer } from '../../support/fake-server.js';

let server: Awaited<ReturnType<typeof startFakeServer>>;
beforeEach(async () => {
  server = await startFakeServer();
});
afterEach(() => server.close());

const env = () => ({ BRAVE_SEARCH_KEY: 'brave-key', BRAVE_SEARCH_URL: `${server.url}/res/v1/web/search` });

describe('Brave backend', () => {
  it('sends GET with q, count and the subscription token, and reads web.results as plain text', async () => {
    server.queue.push(
      json(200, {
        type: 'search',
        query: { original: 'refund policy' },
        web: {
          type: 'search',
          results: [
            {
              title: 'Refund <strong>policy</strong> &amp; limits',
              url: 'https://a.example/refunds',
              description: 'Up to &quot;$200&quot; &#8212; <strong>refund</strong>\n  within 30&nbsp;days',
              age: 'March 3, 2026',
            },
            { title: 'Second', url: 'https://b.example/', description: 'Another' },
            { title: 'Third', url: 'https://c.example/', description: 'Cut by count' },
          ],
        },
      }),
    );
    const results = await searchWeb('refund policy', 2, resolveSearch(env()));
    const req = server.requests[0]!;
    expect(req.method).toBe('GET');
    const url = new URL(req.url, server.url);
    expect(url.pathname).toBe('/res/v1/web/search');
    expect([...url.searchParams]).toEqual([
      ['q', 'refund policy'],
      ['count', '2'],
    ]);
    expect(req.headers['x-subscription-token']).toBe('brave-key');
    expect(req.headers.accept).toBe('application/json');
    expect(req.headers.authorization).toBeUndefined();
    expect(results).toEqual([
      {
        title: 'Refund policy & limits',
        url: 'https://a.example/refunds',
        snippet: 'Up to "$200" — refund within 30 days',
      },
      { title: 'Second', url: 'https://b.example/', snippet: 'Another' },
    ]);
  });

  it('reads a reply without a web section as no results', async () => {
    server.queue.push(json(200, { type: 'search', query: { original: 'zzzz' } }));
    expect(await searchWeb('zzzz', 5, resolveSearch(env()))).toEqual([]);
  });

  it('turns 401, 429, another status, a non-JSON body and a wrong shape into one line each', async () => {
    server.queue.push(
      json(401, {}),
      json(429, {}, { 'retry-after': '2' }),
      json(422, {
        type: 'ErrorResponse',
        error: { code: 'SUBSCRIPTION_TOKEN_INVALID', detail: 'The provided subscription token is invalid.' },
      }),
      {
        status: 200,
        headers: { 'content-type': 'text/html' },
        body: '<!DOCTYPE html><html><body>Maintenance',
      },
      json(200, { web: { results: 'none' } }),
    );
    const messages: string[] = [];
    for (let i = 0; i < 5; i++) {
      const error = await searchWeb('x', 5, resolveSearch(env())).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(WebError);
      messages.push((error as Error).message);
    }
    expect(messages).toEqual([
      'Brave refused the key (401): it is invalid or not allowed; check BRAVE_SEARCH_KEY.',
      'Brave rate limit reached (429, retry after 2 s): wait before searching again, or answer from what you have.',
      'Brave search failed with HTTP 422: The provided subscription token is invalid.',
      'Brave answered with something that is not JSON (text/html, "<!DOCTYPE html><html><body>Maintenance…").',
      'Brave answered in a shape that is not its documented one (web.results: Invalid input: expected array, received string).',
    ]);
    for (const m of messages) expect(m).not.toMatch(/\n/);
  });
});
