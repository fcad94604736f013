import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, tempDb } from '../support/cli.js';
import {
  type FakeResponse,
  json,
  type RecordedRequest,
  sse,
  startFakeServer,
} from '../support/fake-server.js';
import { LOOPBACK_RESEARCH } from '../support/research-world.js';
import { chatSse } from '../support/sse-builders.js';

// The built CLI against a loopback model, search service and pages: nothing is paid for twice.

const page = (title: string, fact: string) =>
  `<html><head><title>${title}</title></head><body><main><h1>${title}</h1><p>${fact}</p></main></body></html>`;

describe('the built CLI caches pages and extractions', () => {
  let server: Awaited<ReturnType<typeof startFakeServer>>;
  let db: string;
  const pageRequests: string[] = [];
  const steps: string[] = [];
  const revalidated: string[] = [];

  const handler = (req: RecordedRequest): FakeResponse => {
    const url = new URL(req.url, 'http://x');
    if (url.pathname === '/search')
      return json(200, {
        web: {
          results: [
            { title: 'Tiers', url: `${server.url}/tiers`, description: 'tiers' },
            { title: 'Leads', url: `${server.url}/leads`, description: 'leads' },
          ],
        },
      });
    if (url.pathname === '/tiers' || url.pathname === '/leads') {
      pageRequests.push(url.pathname);
      const etag = `"${url.pathname}"`;
      if (req.headers['if-none-match'] === etag) {
        revalidated.push(url.pathname);
        return { status: 304, headers: { etag }, body: '' };
      }
      const fact = url.pathname === '/tiers' ? 'Agents approve up to $200.' : 'Leads approve up to $1,000.';
      return {
        headers: { 'content-type': 'text/html', etag: `"${url.pathname}"` },
        body: page(url.pathname, fact),
      };
    }
    const body = req.body as { messages: { role: string; content: string }[] };
    const system = body.messages[0]?.content ?? '';
    const last = body.messages.at(-1)!;
    if (system.includes('You plan research')) {
      steps.push('plan');
      return sse(chatSse({ text: '{"documents": ["policies/refunds"], "searches": ["refund tiers"]}' }));
    }
    if (system.includes('You extract facts')) {
      steps.push('extract');
      return sse(chatSse({ text: '- Agents approve up to $200.' }));
    }
    if (system.includes('You write the answer')) {
      steps.push('write');
      return sse(chatSse({ text: 'Agents approve up to $200 [1].' }));
    }
    steps.push('chat');
    if (last.role === 'tool') return sse(chatSse({ text: 'Read it.' }));
    return sse(chatSse({ calls: [{ id: 'r1', name: 'read_url', args: { url: `${server.url}/tiers` } }] }));
  };

  beforeEach(async () => {
    pageRequests.length = 0;
    revalidated.length = 0;
    steps.length = 0;
    db = tempDb();
    server = await startFakeServer([], handler);
  });
  afterEach(() => server.close());

  const env = (extra: Record<string, string> = {}) => ({
    OPENAI_BASE_URL: `${server.url}/v1`,
    OPENAI_API_KEY: 'k',
    BRAVE_SEARCH_KEY: 'k',
    BRAVE_SEARCH_URL: `${server.url}/search`,
    AGENT_ALLOW_HOSTS: new URL(server.url).host,
    AGENT_DB: db,
    ...extra,
  });
  const research = (...flags: string[]) =>
    runCli([...LOOPBACK_RESEARCH, ...flags, 'Who approves refunds?'], { env: env() });
  const cacheJson = async (...flags: string[]) => {
    const r = await runCli(['cache', '--json', ...flags], { env: env() });
    expect(r.code).toBe(0);
    return JSON.parse(r.stdout);
  };

  it('a second research run fetches no page and makes no extract call; its sources say cached; --refresh pays again', async () => {
    const first = await research();
    expect(first.code).toBe(0);
    expect(steps).toEqual(['plan', 'extract', 'extract', 'extract', 'write']);
    expect(pageRequests.sort()).toEqual(['/leads', '/tiers']);
    expect(first.stderr).not.toMatch(/cached/);

    const second = await research('--json');
    expect(second.code).toBe(0);
    expect(steps.slice(5)).toEqual(['plan', 'write']);
    expect(pageRequests).toHaveLength(2);
    const result = JSON.parse(second.stdout);
    expect(result.sources.map((s: { cached?: boolean }) => s.cached)).toEqual([true, true, true]);
    expect(result.usage.calls).toBe(2);

    const third = await research();
    expect(third.code).toBe(0);
    expect(third.stderr).toMatch(/✓ \[1\] policies\/refunds · cached/);
    expect(third.stderr).toMatch(/✓ http:\S+\/tiers · cached/);
    expect(third.stderr).toMatch(/✓ http:\S+\/leads · cached/);

    const refreshed = await research('--refresh');
    expect(refreshed.code).toBe(0);
    expect(steps.slice(9)).toEqual(['plan', 'extract', 'extract', 'extract', 'write']);
    expect(pageRequests).toHaveLength(4);
    expect(refreshed.stderr).not.toMatch(/cached/);

    // The ledger has a row per call paid for: 5 + 2 + 2 + 5.
    const cost = await runCli(['cost', '--json'], { env: env() });
    expect(JSON.parse(cost.stdout).totals.calls).toBe(14);
  });

  it('agent cache shows both caches, --clear --older-than removes only the old entries, --clear the rest', async () => {
    expect((await research()).code).toBe(0);
    const stats = await cacheJson();
    expect(stats.pages).toMatchObject({ count: 2 });
    expect(stats.extractions).toMatchObject({ count: 3 });
    expect(stats.bytes).toBe(stats.pages.bytes + stats.extractions.bytes);
    expect(Date.parse(stats.pages.oldest)).toBeLessThanOrEqual(Date.parse(stats.pages.newest));

    const shown = await runCli(['cache'], { env: env() });
    expect(shown.stdout).toMatch(/^The cache in .* holds [\d.]+ (KB|bytes):/);
    expect(shown.stdout).toMatch(/^pages\s+2\s+/m);
    expect(shown.stdout).toMatch(/^extractions\s+3\s+/m);

    // One page and one extraction were stored eight days ago.
    const raw = new Database(db);
    const old = Date.now() - 8 * 86_400_000;
    raw.prepare("UPDATE page_cache SET fetched_at = ? WHERE url LIKE '%/leads'").run(old);
    raw
      .prepare(
        'UPDATE extraction_cache SET created_at = ? WHERE rowid = (SELECT min(rowid) FROM extraction_cache)',
      )
      .run(old);
    raw.close();
    const cleared = await runCli(['cache', '--clear', '--older-than', '7d'], { env: env() });
    expect(cleared.code).toBe(0);
    expect(cleared.stdout).toMatch(
      /^Removed 1 page \([\d.]+ (KB|bytes)\) and 1 extraction \([\d.]+ (KB|bytes)\) older than 7d\.$/m,
    );
    const after = await cacheJson();
    expect(after.pages.count).toBe(1);
    expect(after.extractions.count).toBe(2);

    const all = await cacheJson('--clear');
    expect(all.removed).toMatchObject({ pages: { count: 1 }, extractions: { count: 2 } });
    expect(all.olderThan).toBeNull();
    const empty = await cacheJson();
    expect(empty).toMatchObject({ bytes: 0, pages: { count: 0, oldest: null }, extractions: { count: 0 } });
    expect((await runCli(['cache', '--clear'], { env: env() })).stdout).toMatch(/^Nothing to remove/);
  });

  it('agent read and chat read_url use the page cache; --refresh fetches again', async () => {
    const url = `${server.url}/tiers`;
    const read = (...flags: string[]) => runCli(['read', ...flags, url], { env: env() });
    const first = await read();
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/Agents approve up to \$200\./);
    const second = await read('--json');
    expect(JSON.parse(second.stdout)).toMatchObject({ title: '/tiers', kind: 'html', location: url });
    expect(pageRequests).toEqual(['/tiers']);
    expect((await read('--refresh')).code).toBe(0);
    expect(pageRequests).toEqual(['/tiers', '/tiers']);
    expect(revalidated).toEqual([]);
    // --max-age 0 asks the server every time, with the page's ETag: its 304 keeps the stored page.
    const asked = await read('--max-age', '0');
    expect(asked.stdout).toBe(first.stdout);
    expect(revalidated).toEqual(['/tiers']);
    const chat = await runCli(['chat', '--provider', 'openai-compatible', '-m', 'm'], {
      env: env(),
      input: 'What are the tiers?\n',
    });
    expect(chat.code).toBe(0);
    expect(chat.stdout).toMatch(/Read it\./);
    expect(pageRequests).toHaveLength(3);
    const fresh = await runCli(['chat', '--provider', 'openai-compatible', '-m', 'm', '--refresh'], {
      env: env(),
      input: 'What are the tiers?\n',
    });
    expect(fresh.code).toBe(0);
    expect(pageRequests).toHaveLength(4);
    expect(revalidated).toEqual(['/tiers']);
  });

  it('a bad --max-age, --older-than or AGENT_MAX_AGE is exit 2 with one line', async () => {
    const age = await research('--max-age', 'soon');
    expect(age.code).toBe(2);
    expect(age.stderr).toMatch(/--max-age <age>.*expected a duration like 30m, 12h or 7d/);
    const older = await runCli(['cache', '--clear', '--older-than', '7'], { env: env() });
    expect(older.code).toBe(2);
    expect(older.stderr).toMatch(/expected a duration/);
    const alone = await runCli(['cache', '--older-than', '7d'], { env: env() });
    expect(alone.code).toBe(2);
    expect(alone.stderr).toBe(
      'agent: --older-than says which entries --clear removes: use it with --clear.\n',
    );
    const variable = await runCli(['read', `${server.url}/tiers`], { env: env({ AGENT_MAX_AGE: 'later' }) });
    expect(variable.code).toBe(2);
    expect(variable.stderr).toBe(
      'agent: AGENT_MAX_AGE=later is not a valid age: expected a duration like 30m, 12h or 7d (s, m, h, d or w), or 0.\n',
    );
    expect(steps).toEqual([]);
    expect(pageRequests).toEqual([]);
  });
});
