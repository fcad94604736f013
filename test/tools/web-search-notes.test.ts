import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildChatTools } from '../../src/tools/index.js';
import { saveNoteTool, searchNotesTool } from '../../src/tools/notes.js';
import { webSearchTool } from '../../src/tools/web-search.js';
import { resolveSearch } from '../../src/web/search/config.js';
import { json, startFakeServer } from '../support/fake-server.js';
import { sqliteStore } from '../support/stores.js';

const signal = new AbortController().signal;
let server: Awaited<ReturnType<typeof startFakeServer>>;
beforeEach(async () => {
  server = await startFakeServer();
});
afterEach(() => server.close());

describe('web_search', () => {
  it('sends the Brave request shape and numbers the results', async () => {
    server.queue.push(
      json(200, {
        web: {
          results: [
            {
              title: 'Refund <strong>policy</strong>',
              url: 'https://a.example/refunds',
              description: 'Up to &quot;$200&quot; &amp; more',
            },
            { title: 'Second', url: 'https://b.example/', description: 'Another' },
          ],
        },
      }),
    );
    const tool = webSearchTool(
      resolveSearch({ BRAVE_SEARCH_KEY: 'brave-key', BRAVE_SEARCH_URL: `${server.url}/res/v1/web/search` }),
    );
    const out = await tool.run({ query: 'refund policy $200', count: 2 }, { signal });
    const req = server.requests[0]!;
    expect(req.method).toBe('GET');
    const url = new URL(req.url, server.url);
    expect(url.pathname).toBe('/res/v1/web/search');
    expect(Object.fromEntries(url.searchParams)).toEqual({ q: 'refund policy $200', count: '2' });
    expect(req.headers['x-subscription-token']).toBe('brave-key');
    expect(req.headers.accept).toBe('application/json');
    expect(out).toBe(
      '1. Refund policy\n   https://a.example/refunds\n   Up to "$200" & more\n2. Second\n   https://b.example/\n   Another',
    );
  });

  it('turns 429 and 401 into errors that say what happened', async () => {
    server.queue.push(json(429, {}), json(401, {}));
    const tool = webSearchTool(resolveSearch({ BRAVE_SEARCH_KEY: 'k', BRAVE_SEARCH_URL: server.url }));
    await expect(tool.run({ query: 'x' }, { signal })).rejects.toThrow(/rate limit reached \(429\)/);
    await expect(tool.run({ query: 'x' }, { signal })).rejects.toThrow(
      /refused the key \(401\).*BRAVE_SEARCH_KEY/,
    );
  });

  it('says "No results." for an empty result list', async () => {
    server.queue.push(json(200, { web: { results: [] } }));
    const tool = webSearchTool(resolveSearch({ BRAVE_SEARCH_KEY: 'k', BRAVE_SEARCH_URL: server.url }));
    expect(await tool.run({ query: 'zzzz' }, { signal })).toBe('No results.');
    expect(new URL(server.requests[0]!.url, server.url).searchParams.get('count')).toBe('5');
  });

  it('is offered only when a search backend is configured', async () => {
    const store = await sqliteStore(':memory:');
    expect((await buildChatTools(store.notes, {})).names).toEqual([
      'calculator',
      'read_url',
      'save_note',
      'search_notes',
    ]);
    expect((await buildChatTools(store.notes, { BRAVE_SEARCH_KEY: 'k' })).names).toContain('web_search');
    const specs = (await buildChatTools(store.notes, {})).specs;
    expect(specs[0]).toEqual({
      name: 'calculator',
      description: expect.stringMatching(/arithmetic/),
      parameters: {
        type: 'object',
        properties: { expression: { type: 'string', minLength: 1, description: expect.any(String) } },
        required: ['expression'],
        additionalProperties: false,
      },
    });
  });
});

describe('save_note and search_notes', () => {
  it('round-trips a note that agent notes then lists', async () => {
    const store = await sqliteStore(':memory:');
    const save = saveNoteTool(store.notes);
    expect(
      await save.run({ content: 'Refund limit is $200', title: 'Refunds', tags: ['policy'] }, { signal }),
    ).toBe('Saved note #1 "Refunds".');
    await expect(save.run({ content: '  ' }, { signal })).rejects.toThrow(/empty/);
    expect((await store.notes.list()).map((n) => n.content)).toEqual(['Refund limit is $200']);
    const found = await searchNotesTool(store.notes).run({ query: 'refund' }, { signal });
    expect(found).toMatch(/^#1 Refunds \(\d{4}-\d{2}-\d{2}; tags: policy\)\nRefund limit is \$200$/);
    expect(await searchNotesTool(store.notes).run({ query: 'zebra' }, { signal })).toBe(
      'No notes match "zebra".',
    );
  });
});
