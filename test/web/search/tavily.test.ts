import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveSearch, searchWeb } from '../../../src/web/search/index.js';
import { json, startFakeServer } from '../../support/fake-server.js';

let server: Awaited<ReturnType<typeof startFakeServer>>;
beforeEach(async () => {
  server = await startFakeServer();
});
afterEach(() => server.close());

const env = (base = server.url) => ({ TAVILY_API_KEY: 'tvly-dev-key', TAVILY_BASE_URL: base });

describe('Tavily backend', () => {
  it('POSTs the documented JSON body with a bearer key to {base}/search', async () => {
    server.queue.push(json(200, { query: 'q', results: [], response_time: 0.4 }));
    await searchWeb('refund limit for agents', 3, resolveSearch(env(`${server.url}/`)));
    const req = server.requests[0]!;
    expect(req.method).toBe('POST');
    expect(req.url).toBe('/search');
    expect(req.headers.authorization).toBe('Bearer tvly-dev-key');
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.body).toEqual({
      query: 'refund limit for agents',
      max_results: 3,
      search_depth: 'basic',
      topic: 'general',
      include_answer: false,
      include_raw_content: true,
      include_images: false,
    });
  });

  it('keeps the snippet and, when Tavily has it, the raw page content', async () => {
    server.queue.push(
      json(200, {
        query: 'refund limit',
        answer: null,
        images: [],
        results: [
          {
            title: 'Refunds — Help Center',
            url: 'https://help.example/refunds',
            content: 'Agents may refund up to $200\nwithout approval.',
            score: 0.91,
            raw_content: '# Refunds\n\n| Tier | Limit |\n| --- | --- |\n| Agent | $200 |\n',
          },
          {
            title: 'Blog: a < b when refunding',
            url: 'https://blog.example/post',
            content: 'Snippet only',
            score: 0.5,
            raw_content: null,
          },
          { title: 'Third', url: 'https://c.example/', content: 'x', score: 0.1, raw_content: '   ' },
        ],
        response_time: 1.2,
      }),
    );
    expect(await searchWeb('refund limit', 5, resolveSearch(env()))).toEqual([
      {
        title: 'Refunds — Help Center',
        url: 'https://help.example/refunds',
        snippet: 'Agents may refund up to $200 without approval.',
        content: '# Refunds\n\n| Tier | Limit |\n| --- | --- |\n| Agent | $200 |',
      },
      { title: 'Blog: a < b when refunding', url: 'https://blog.example/post', snippet: 'Snippet only' },
      { title: 'Third', url: 'https://c.example/', snippet: 'x' },
    ]);
  });

  it('turns 401, 429, a quoted refusal and a non-JSON body into one line each', async () => {
    server.queue.push(
      json(401, { detail: { error: 'Unauthorized: missing or invalid API key.' } }),
      json(429, { detail: { error: 'Too many requests' } }),
      json(432, { detail: { error: "This request exceeds your plan's set usage limit." } }),
      { status: 200, headers: { 'content-type': 'text/plain' }, body: 'upstream timeout' },
    );
    const messages: string[] = [];
    for (let i = 0; i < 4; i++)
      messages.push(await searchWeb('x', 5, resolveSearch(env())).then(String, (e: Error) => e.message));
    expect(messages).toEqual([
      'Tavily refused the key (401): it is invalid or not allowed; check TAVILY_API_KEY.',
      'Tavily rate limit reached (429): wait before searching again, or answer from what you have.',
      "Tavily search failed with HTTP 432: This request exceeds your plan's set usage limit.",
      'Tavily answered with something that is not JSON (text/plain, "upstream timeout…").',
    ]);
  });
});
