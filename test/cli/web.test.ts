import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, tempDb } from '../support/cli.js';
import {
  type FakeResponse,
  json,
  type RecordedRequest,
  sse,
  startFakeServer,
} from '../support/fake-server.js';
import { makePdf } from '../support/make-pdf.js';
import { chatSse } from '../support/sse-builders.js';

// The built CLI reading the web on loopback: search results, an HTML page with a table, a PDF, and
// read_url in chat. In-process tests cover the logic; these catch what only the shipped bundle can break.

const TABLE_PAGE =
  '<html><head><title>Approval tiers</title></head><body><nav><a href="/">Home</a></nav><main><h1>Approval tiers</h1>' +
  '<p>Refund approvals depend on the tier of whoever approves them.</p>' +
  '<table><tr><th>Tier</th><th>Limit</th></tr><tr><td>Agent</td><td>$200</td></tr></table>' +
  '<p>Escalate anything larger.</p><ul><li>First item</li><li>Second item</li></ul></main></body></html>';

describe('the built CLI reads the web', () => {
  let server: Awaited<ReturnType<typeof startFakeServer>>;
  const extractPrompts: string[] = [];
  let toolResult = '';

  const handler = (req: RecordedRequest): FakeResponse => {
    const url = new URL(req.url, 'http://x');
    if (url.pathname === '/search')
      return json(200, {
        web: {
          results: [
            { title: 'Tiers', url: `${server.url}/tiers#top`, description: 'tiers' },
            { title: 'Policy PDF', url: `${server.url}/files/policy`, description: 'pdf' },
          ],
        },
      });
    if (url.pathname === '/tiers') return { headers: { 'content-type': 'text/html' }, body: TABLE_PAGE };
    if (url.pathname === '/files/policy')
      return {
        // A PDF served under a misleading type and path: recognised by its %PDF- start.
        headers: { 'content-type': 'application/octet-stream' },
        body: makePdf({ pages: [['Cover'], ['Leads approve refunds up to $1,000.']] }).toString('latin1'),
      };
    const body = req.body as any;
    const system = body.messages[0]?.content ?? '';
    const last = body.messages.at(-1);
    if (system.includes('You plan research'))
      return sse(chatSse({ text: '{"documents": [], "searches": ["refund tiers"]}' }));
    if (system.includes('You extract facts')) {
      extractPrompts.push(last.content);
      return sse(chatSse({ text: '- Agents approve up to $200.' }));
    }
    if (system.includes('You write the answer'))
      return sse(chatSse({ text: 'Agents approve up to $200 [1].' }));
    // Chat: ask for read_url, then answer with what came back.
    if (last.role === 'tool') {
      toolResult = last.content;
      return sse(chatSse({ text: 'Read it.' }));
    }
    return sse(chatSse({ calls: [{ id: 'r1', name: 'read_url', args: { url: `${server.url}/tiers` } }] }));
  };

  beforeEach(async () => {
    extractPrompts.length = 0;
    toolResult = '';
    server = await startFakeServer([], handler);
  });
  afterEach(() => server.close());

  const env = () => ({
    OPENAI_BASE_URL: `${server.url}/v1`,
    BRAVE_SEARCH_KEY: 'k',
    BRAVE_SEARCH_URL: `${server.url}/search`,
    AGENT_ALLOW_HOSTS: new URL(server.url).host,
    AGENT_DB: tempDb(),
  });

  it('research: a page table and a PDF page reach extraction, both sources listed', async () => {
    const r = await runCli(
      [
        'research',
        '--provider',
        'openai-compatible',
        '--small-model',
        's',
        '--large-model',
        'l',
        'Who approves refunds?',
      ],
      { env: env() },
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/\[1\] Approval tiers — http:.*\/tiers/);
    expect(r.stdout).toMatch(/\[2\] Cover — http:.*\/files\/policy/);
    const all = extractPrompts.join('\n');
    expect(all).toMatch(/\| Tier \| Limit \|\n\| --- \| --- \|\n\| Agent \| \$200 \|/);
    expect(all).toMatch(/- First item\n- Second item/);
    expect(all).not.toMatch(/Home/);
    expect(all).toMatch(/\[Page 2\]\n+Leads approve refunds up to \$1,000\./);
  });

  it('chat: read_url returns the page as Markdown to the model', async () => {
    const r = await runCli(['chat', '--provider', 'openai-compatible', '-m', 'm'], {
      env: env(),
      input: 'What are the approval tiers?\n',
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Read it\./);
    expect(toolResult).toMatch(/^Approval tiers\n/);
    expect(toolResult).toMatch(/# Approval tiers/);
    expect(toolResult).toMatch(/\| Agent \| \$200 \|/);
  });
});
