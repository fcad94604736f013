import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, tempDb } from '../support/cli.js';
import { json, type RecordedRequest, sse, startFakeServer } from '../support/fake-server.js';
import { chatSse } from '../support/sse-builders.js';

// --plan, --plan-file and the web filters, run as a user would: the built CLI against one loopback server
// that is the model (OpenAI chat API), a Brave-style search service and the web pages.

const QUESTION = 'How much can a support agent refund without approval?';
let server: Awaited<ReturnType<typeof startFakeServer>>;
let planReply: string;
let searchResults: { title: string; url: string; description: string; page_age?: string }[];

const systemOf = (req: RecordedRequest) => ((req.body as any)?.messages?.[0]?.content as string) ?? '';
const modelCalls = (step: RegExp) => server.requests.filter((r) => step.test(systemOf(r))).length;

beforeEach(async () => {
  planReply = '{"documents": ["policies/refunds", "support/escalation"], "searches": []}';
  searchResults = [];
  server = await startFakeServer([], (req) => {
    const url = new URL(req.url, 'http://x');
    if (url.pathname === '/search') return json(200, { web: { results: searchResults } });
    if (url.pathname.startsWith('/page'))
      return {
        headers: { 'content-type': 'text/html' },
        body: `<html><head><title>Page ${url.pathname}</title></head><body><p>Refunds are capped at $200 on ${url.pathname}.</p></body></html>`,
      };
    const system = systemOf(req);
    const user = JSON.stringify((req.body as any)?.messages?.at(-1)?.content ?? '');
    if (system.includes('You plan research') && user.includes('Facts gathered so far'))
      return sse(chatSse({ text: '{"gaps": ["more"], "documents": [], "searches": ["second search"]}' }));
    if (system.includes('You plan research')) return sse(chatSse({ text: planReply }));
    if (system.includes('You extract facts')) return sse(chatSse({ text: '- Agents refund up to $200.' }));
    return sse(chatSse({ text: 'Up to $200 [1].' }));
  });
});
afterEach(() => server.close());

function research(args: string[], env: Record<string, string> = {}) {
  return runCli(
    ['research', ...args, '--provider', 'openai-compatible', '--small-model', 's', '--large-model', 'l'],
    {
      env: { OPENAI_BASE_URL: `${server.url}/v1`, AGENT_DB: env.AGENT_DB ?? tempDb(), ...env },
    },
  );
}

const planFile = (value: unknown) => {
  const file = join(mkdtempSync(join(tmpdir(), 'agent-plan-')), 'plan.json');
  writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value));
  return file;
};

describe('--plan', () => {
  it('prints the numbered plan with titles and stops after the plan call', async () => {
    const r = await research(['--plan', QUESTION]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      'Plan\nDocuments:\n  1. policies/refunds — Refunds Policy\n  2. support/escalation — Support Escalation Procedure\n',
    );
    expect(r.stderr).toMatch(/1 model call · 100 input, 20 output tokens/);
    expect(server.requests).toHaveLength(1);
    expect(modelCalls(/You plan research/)).toBe(1);
  });

  it('--json prints exactly {plan, usage}, and the plan call is in the ledger', async () => {
    const db = tempDb();
    planReply = '{"documents": ["policies/refunds"], "searches": ["refund law EU"]}';
    const r = await research(['--plan', '--json', QUESTION], { AGENT_DB: db, BRAVE_SEARCH_KEY: 'k' });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(Object.keys(out)).toEqual(['plan', 'usage']);
    expect(out.plan).toEqual({
      documents: [{ slug: 'policies/refunds', title: 'Refunds Policy' }],
      searches: ['refund law EU'],
    });
    expect(out.usage).toMatchObject({ calls: 1, inputTokens: 100, outputTokens: 20 });
    const cost = JSON.parse(
      (await runCli(['cost', '--by', 'command', '--json'], { env: { AGENT_DB: db } })).stdout,
    );
    expect(cost.rows).toEqual([expect.objectContaining({ key: 'research', calls: 1 })]);
  });

  it('needs a model: without one it is a usage error', async () => {
    const r = await runCli(['research', '--plan', QUESTION], { env: { AGENT_DB: tempDb() } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^agent: --plan needs a model/);
    expect(r.stdout).toBe('');
  });
});

describe('--plan-file', () => {
  it('runs what --plan --json printed, edited, without a plan call', async () => {
    const printed = JSON.parse((await research(['--plan', '--json', QUESTION])).stdout);
    printed.plan.documents = printed.plan.documents.filter(
      (d: { slug: string }) => d.slug !== 'policies/refunds',
    );
    printed.plan.documents.push({ slug: 'policies/approvals', title: 'edited by hand' });
    server.requests.length = 0;
    const r = await research(['--json', '--plan-file', planFile(printed), QUESTION]);
    expect(r.code).toBe(0);
    expect(modelCalls(/You plan research/)).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.sources.map((s: { title: string }) => s.title)).toEqual([
      'Support Escalation Procedure',
      'Spending Approvals Policy',
    ]);
    expect(out.usage.calls).toBe(3);
  });

  it('takes plain slugs and search strings', async () => {
    const file = planFile({ documents: ['policies/travel'], searches: [] });
    const r = await research(['--plan-file', file, QUESTION]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/✓ \[1\] policies\/travel/);
    expect(modelCalls(/You plan research/)).toBe(0);
  });

  it('refuses unknown document slugs up front, naming them, with nothing spent', async () => {
    const file = planFile({ documents: ['policies/refunds', 'policies/nope', 'hr/gone'], searches: [] });
    const r = await research(['--plan-file', file, QUESTION]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^agent: The plan names documents not in .*: policies\/nope, hr\/gone\./m);
    expect(server.requests).toHaveLength(0);
  });

  it('refuses a file that is not a plan, or not there, with one line and exit 2', async () => {
    for (const [file, message] of [
      [planFile('{"documents": '), /is not valid JSON/],
      [planFile({ documents: [3] }), /has documents\[0\] that is not a slug/],
      [planFile({ answer: 'x' }), /has neither "documents" nor "searches"/],
      [planFile({ plan: { documents: [], searches: [] } }), /names no documents and no searches/],
      ['/nonexistent/plan.json', /Cannot read the plan file \/nonexistent\/plan\.json/],
    ] as const) {
      const r = await research(['--plan-file', file, QUESTION]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
    expect(server.requests).toHaveLength(0);
  });
});

describe('--review', () => {
  it('is a usage error on a pipe', async () => {
    const r = await research(['--review', QUESTION]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^agent: --review asks on a terminal, and this is not one/);
    expect(server.requests).toHaveLength(0);
  });
});

describe('web filters', () => {
  const web = () => ({
    BRAVE_SEARCH_KEY: 'k',
    BRAVE_SEARCH_URL: `${server.url}/search`,
    AGENT_ALLOW_HOSTS: new URL(server.url).host,
  });

  it('go to the search service, drop what falls outside, say so, and are saved with the run', async () => {
    planReply = '{"documents": [], "searches": ["refund cap"]}';
    searchResults = [
      { title: 'Elsewhere', url: 'https://other.example/page', description: 'x' },
      { title: 'Old', url: `${server.url}/page-old`, description: 'x', page_age: '2001-01-01T00:00:00' },
      { title: 'Kept', url: `${server.url}/page-new`, description: 'x', page_age: new Date().toISOString() },
    ];
    const r = await research(['--json', '--site', '127.0.0.1', '--recent', '6m', QUESTION], web());
    expect(r.code).toBe(0);
    const searches = server.requests.filter((q) => q.url.startsWith('/search'));
    expect(searches).toHaveLength(1);
    const sent = new URL(searches[0]!.url, server.url).searchParams;
    expect(sent.get('q')).toBe('refund cap site:127.0.0.1');
    expect(sent.get('freshness')).toMatch(/^\d{4}-\d{2}-\d{2}to\d{4}-\d{2}-\d{2}$/);
    expect(r.stderr).toContain(
      'search "refund cap": 2 of 3 result(s) dropped by the web filters (1 outside --site, 1 older than --recent 6m)',
    );
    const out = JSON.parse(r.stdout);
    expect(out.sources.map((s: { location: string }) => s.location)).toEqual([`${server.url}/page-new`]);
    expect(out.settings).toMatchObject({ sites: ['127.0.0.1'], recent: '6m' });
    expect(server.requests.some((q) => q.url === '/page-old')).toBe(false);
  });

  it('apply to the searches of follow-up rounds too', async () => {
    planReply = '{"documents": [], "searches": ["first search"]}';
    searchResults = [{ title: 'Kept', url: `${server.url}/page-1`, description: 'x' }];
    const r = await research(['--depth', '2', '--exclude-site', 'spam.example', QUESTION], web());
    expect(r.code).toBe(0);
    const sent = server.requests
      .filter((q) => q.url.startsWith('/search'))
      .map((q) => new URL(q.url, server.url).searchParams.get('q'));
    expect(sent).toEqual(['first search -site:spam.example', 'second search -site:spam.example']);
  });

  it('AGENT_EXCLUDE_SITES sets a default; a malformed entry is a configuration error', async () => {
    planReply = '{"documents": [], "searches": ["refund cap"]}';
    searchResults = [
      { title: 'Mirror', url: `${server.url}/page-a`, description: 'x' },
      { title: 'Kept', url: 'https://other.example/p', description: 'x' },
    ];
    const env = { ...web(), AGENT_EXCLUDE_SITES: ' 127.0.0.1 , spam.example' };
    const r = await research(['--json', '--depth', '1', QUESTION], env);
    const sent = new URL(server.requests.find((q) => q.url.startsWith('/search'))!.url, server.url);
    expect(sent.searchParams.get('q')).toBe('refund cap -site:127.0.0.1 -site:spam.example');
    expect(JSON.parse(r.stdout).settings.excludeSites).toEqual(['127.0.0.1', 'spam.example']);

    const bad = await research(['--plan', QUESTION], { AGENT_SITES: 'ok.example,not a site' });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe(
      'agent: AGENT_SITES holds "not a site", which is not a domain (e.g. example.com).\n',
    );
  });

  it('say so when extractive mode has no web to filter', async () => {
    const r = await runCli(['research', '--site', 'example.com', '--recent', '1y', QUESTION], {
      env: { AGENT_DB: tempDb() },
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^Extractive mode does not search the web: --site, --recent ignored\.$/m);
  });

  it('--recent takes 7d, 6m, 1y; anything else is exit 2', async () => {
    const r = await research(['--recent', 'last week', QUESTION]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--recent <period>' argument 'last week' is invalid/);
  });
});
