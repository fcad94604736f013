import { afterEach, describe, expect, it } from 'vitest';
import { runResearch } from '../../src/research/pipeline.js';
import { json, startFakeServer } from '../support/fake-server.js';
import { makeDocx } from '../support/make-docx.js';
import { makePdf } from '../support/make-pdf.js';
import { contentFolder, fakeWeb, researchModel, type Script } from '../support/research-world.js';
import { sqliteStoreNow } from '../support/stores.js';

// What reaches the extraction prompt, from every kind of source the chain reads.

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

async function research(
  script: Script,
  dir: string,
  env: NodeJS.ProcessEnv = {},
  question = 'What is the limit?',
) {
  const model = researchModel(script);
  const result = await runResearch({
    question,
    store: sqliteStoreNow(':memory:'),
    contentDir: dir,
    env,
    models: { provider: model, smallModel: 'small', largeModel: 'large' },
  });
  const extracts = model.calls.filter((c) => c.step === 'extract').map((c) => c.prompt);
  return { result, model, extracts };
}

const plan =
  (documents: string[], searches: string[] = []) =>
  () =>
    JSON.stringify({ documents, searches });

describe('sources reach the extraction prompt', () => {
  it('a PDF page read by URL, with its page marker', async () => {
    const pdf = makePdf({
      pages: [['Cover page'], ['Section two', 'The refund ceiling is $450 per order.']],
    });
    const w = await fakeWeb(
      { 'refund pdf': ['/policy.pdf'] },
      { '/policy.pdf': { body: pdf, type: 'application/pdf' } },
    );
    closers.push(w.server.close);
    const { extracts, result } = await research({ plan: plan([], ['refund pdf']) }, contentFolder({}), w.env);
    expect(result.sources[0]!.location).toMatch(/policy\.pdf$/);
    expect(extracts[0]).toMatch(/\[Page 2\]\n[\s\S]*The refund ceiling is \$450 per order\./);
  });

  it('a fact on a late page of a long PDF read by URL, as its matching passages', async () => {
    const routine = (p: number) =>
      Array.from({ length: 30 }, (_, i) => `Line ${p}.${i} records routine matters of the facilities team.`);
    const pages = Array.from({ length: 40 }, (_, p) => routine(p));
    pages[33] = ['Equipment', 'The standing desk allowance is $480 per employee.', ...routine(33).slice(2)];
    const pdf = makePdf({ pages });
    const w = await fakeWeb(
      { 'desk allowance': ['/manual.pdf'] },
      { '/manual.pdf': { body: pdf, type: 'application/pdf' } },
    );
    closers.push(w.server.close);
    const { extracts, result } = await research(
      { plan: plan([], ['desk allowance']) },
      contentFolder({}),
      w.env,
      'What is the standing desk allowance?',
    );
    expect(result.sources[0]!.status).toBe('excerpts');
    expect(extracts[0]).toMatch(/Page 34[\s\S]*The standing desk allowance is \$480 per employee\./);
    expect(extracts[0]).toContain('[…]');
    expect(extracts[0]!.length).toBeLessThan(26_000);
  });

  it('a PDF, a DOCX and an HTML document from the content folder, found by the planner and read', async () => {
    const dir = contentFolder({
      'handbook.pdf': makePdf({ pages: [['Handbook'], ['Laptops are replaced every 36 months.']] }),
      'benefits.docx': makeDocx([
        { heading: 'Benefits', level: 1 },
        { paragraph: 'Every employee gets 25 days of paid leave.' },
        {
          table: [
            ['Plan', 'Cover'],
            ['Dental', '80%'],
          ],
        },
      ]),
      'wiki/parking.html':
        '<html><head><title>Parking</title></head><body><nav><a href="/">Home</a></nav><main><h1>Parking</h1><p>Visitors park in bay C after signing in at reception.</p></main></body></html>',
    });
    let listing = '';
    const { extracts, result } = await research(
      {
        plan: (prompt) => {
          listing = prompt;
          return JSON.stringify({ documents: ['handbook', 'benefits', 'wiki/parking'], searches: [] });
        },
      },
      dir,
    );
    expect(listing).toMatch(/- benefits: Benefits/);
    expect(listing).toMatch(/- wiki\/parking: Parking/);
    expect(result.sources.map((s) => s.slug)).toEqual(['handbook', 'benefits', 'wiki/parking']);
    const all = extracts.join('\n');
    expect(all).toMatch(/Laptops are replaced every 36 months\./);
    expect(all).toMatch(/25 days of paid leave/);
    expect(all).toMatch(/\|\s*Dental\s*\|\s*80%\s*\|/);
    expect(all).toMatch(/Visitors park in bay C/);
    expect(all).not.toMatch(/Home/);
  });

  it('a fact deep in a long document (past 50,000 characters), with its heading', async () => {
    const filler = (n: number) =>
      Array.from(
        { length: 40 },
        (_, i) => `Paragraph ${n}.${i} describes routine matters of office life in some detail.`,
      ).join('\n\n');
    const sections = Array.from({ length: 30 }, (_, i) => `## Chapter ${i + 1}\n\n${filler(i)}`);
    sections.splice(25, 0, '## Equipment\n\nThe monitor allowance is $640 for every new starter.');
    const body = `# Staff Handbook\n\n${sections.join('\n\n')}\n`;
    expect(body.indexOf('monitor allowance')).toBeGreaterThan(50_000);
    const { extracts, result } = await research(
      { plan: plan(['handbook']) },
      contentFolder({ 'handbook.md': body }),
      {},
      'What is the monitor allowance for new starters?',
    );
    expect(result.sources[0]!.status).toBe('excerpts');
    expect(extracts[0]).toMatch(/Equipment[\s\S]*The monitor allowance is \$640/);
    expect(extracts[0]).toContain('[…]');
    expect(extracts[0]!.length).toBeLessThan(26_000);
  });

  it("a page that cannot be read falls back to the search service's copy of its text (Tavily)", async () => {
    const tavily = await startFakeServer([], (req) =>
      json(200, {
        query: (req.body as { query: string }).query,
        results: [
          {
            title: 'Blocked page',
            url: 'https://blocked.example/limits',
            content: 'short snippet',
            raw_content: 'The full page says the transfer limit is $9,000 a day.',
            score: 0.9,
          },
        ],
      }),
    );
    closers.push(tavily.close);
    const { extracts, result } = await research({ plan: plan([], ['transfer limit']) }, contentFolder({}), {
      TAVILY_API_KEY: 'tvly-test',
      TAVILY_BASE_URL: tavily.url,
    });
    expect(tavily.requests[0]!.headers.authorization).toBe('Bearer tvly-test');
    expect(result.sources[0]!.status).toBe('search-text');
    expect(extracts[0]).toMatch(/search service[\s\S]*transfer limit is \$9,000 a day/);
    expect(result.reports[0]).toMatchObject({ status: 'search-text' });
  });
});
