import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildChatTools } from '../../src/tools/index.js';
import { runCli, tempDb } from '../support/cli.js';
import { json, sse, startFakeServer } from '../support/fake-server.js';
import { chatSse } from '../support/sse-builders.js';
import { sqliteStore } from '../support/stores.js';

let server: Awaited<ReturnType<typeof startFakeServer>>;
beforeEach(async () => {
  server = await startFakeServer();
});
afterEach(() => server.close());

describe('web_search in chat', () => {
  it('is offered with any backend configured, under a description that names no vendor', async () => {
    const store = await sqliteStore(':memory:');
    for (const env of [
      { BRAVE_SEARCH_KEY: 'k' },
      { TAVILY_API_KEY: 'k' },
      { SEARXNG_URL: 'http://searx.lan' },
    ]) {
      expect((await buildChatTools(store.notes, env)).names).toContain('web_search');
    }
    expect((await buildChatTools(store.notes, {})).names).not.toContain('web_search');
    const spec = (await buildChatTools(store.notes, { SEARXNG_URL: 'http://searx.lan' })).specs.find(
      (s) => s.name === 'web_search',
    )!;
    expect(spec.description).not.toMatch(/brave|tavily|searxng/i);
  });

  it('stops the chat at start when AGENT_SEARCH names no backend', async () => {
    const r = await runCli(['chat', '--provider', 'openai-compatible', '--model', 'm'], {
      env: { OPENAI_BASE_URL: `${server.url}/v1`, AGENT_DB: tempDb(), AGENT_SEARCH: 'google' },
      input: 'hello\n',
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/AGENT_SEARCH is "google", which is not a search backend/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(server.requests).toEqual([]);
  });

  it('searches through SearXNG end to end when only SEARXNG_URL is set', async () => {
    server.queue.push(
      sse(
        chatSse({ calls: [{ id: 'call_1', name: 'web_search', args: { query: 'refund limit', count: 2 } }] }),
      ),
      json(200, {
        query: 'refund limit',
        results: [
          { url: 'https://help.example/refunds', title: 'Refunds', content: 'Agents refund up to $200.' },
          { url: 'https://b.example/', title: 'Other', content: 'Else' },
        ],
        unresponsive_engines: [],
      }),
      sse(chatSse({ text: 'Agents can refund up to $200.' })),
    );
    const r = await runCli(['chat', '--provider', 'openai-compatible', '--model', 'local-model'], {
      // TAVILY_API_KEY empty: a key in the developer's shell must not take precedence.
      env: {
        OPENAI_BASE_URL: `${server.url}/v1`,
        AGENT_DB: tempDb(),
        SEARXNG_URL: server.url,
        TAVILY_API_KEY: '',
      },
      input: 'What is the refund limit?\n',
    });
    expect(r.stderr).not.toMatch(/failed/);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('Agents can refund up to $200.\n');

    const first = server.requests[0]!.body as any;
    expect(first.tools.map((t: any) => t.function.name)).toContain('web_search');
    expect(server.requests[1]!.url).toBe('/search?q=refund+limit&format=json');
    const third = server.requests[2]!.body as any;
    expect(third.messages.at(-1)).toEqual({
      role: 'tool',
      tool_call_id: 'call_1',
      content:
        '1. Refunds\n   https://help.example/refunds\n   Agents refund up to $200.\n' +
        '2. Other\n   https://b.example/\n   Else',
    });
  });
});
