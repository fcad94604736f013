import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createProvider } from '../../src/providers/registry.js';
import { type ResearchEvent, runResearch } from '../../src/research/pipeline.js';
import { json, type RecordedRequest, sse, startFakeServer } from '../support/fake-server.js';
import { chatSse } from '../support/sse-builders.js';
import { sqliteStoreNow } from '../support/stores.js';

function contentDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'agent-content-'));
  mkdirSync(join(dir, 'policies'));
  writeFileSync(
    join(dir, 'policies', 'refunds.md'),
    '# Refunds\n\nA support agent can refund up to $200 without approval.\nRefunds above $200 need a team lead.\n',
  );
  writeFileSync(
    join(dir, 'policies', 'travel.md'),
    '# Travel\n\nTrains are preferred for journeys under 500 km.\n',
  );
  writeFileSync(join(dir, 'notes.txt'), 'Office plants\nThe office plants are watered on Mondays.\n');
  return dir;
}

let server: Awaited<ReturnType<typeof startFakeServer>>;
const modelCalls: { model: string; kind: string }[] = [];
const saved = { ...process.env };

const userText = (req: RecordedRequest): string => {
  const body = req.body as any;
  return body.messages
    .filter((m: any) => m.role === 'user')
    .map((m: any) => m.content)
    .join('\n');
};

/** The scripted model: it answers by step, which it recognises from the prompt. */
async function model(req: RecordedRequest) {
  const body = req.body as any;
  const system = body.messages[0]?.content ?? '';
  if (system.includes('You plan research')) {
    modelCalls.push({ model: body.model, kind: 'plan' });
    const retry = body.messages.length > 2;
    return sse(
      chatSse({
        text: retry
          ? '```json\n{"documents": ["policies/refunds", "policies/unknown"], "searches": ["refund law", "broken page"]}\n```'
          : 'I would read the refunds policy.',
      }),
    );
  }
  if (system.includes('You extract facts')) {
    modelCalls.push({ model: body.model, kind: 'extract' });
    await new Promise((r) => setTimeout(r, 60));
    const u = userText(req);
    const title = /^Source: (.*) \(/m.exec(u)![1];
    return sse(chatSse({ text: `- fact from ${title}` }));
  }
  modelCalls.push({ model: body.model, kind: 'write' });
  return sse(
    chatSse({
      text: 'Agents may refund up to $200 without approval [1]. Consumer law sets a 14-day window [2]. The snippet says refunds are popular [3]. Larger refunds are reviewed weekly by the team in charge of them. See also [7].',
    }),
  );
}

beforeEach(async () => {
  modelCalls.length = 0;
  server = await startFakeServer([], async (req) => {
    const url = new URL(req.url, 'http://x');
    if (url.pathname === '/search') {
      const q = url.searchParams.get('q');
      const page = q === 'refund law' ? '/law' : '/broken';
      return json(200, {
        web: {
          results: [
            { title: `Result for ${q}`, url: `${server.url}${page}`, description: `Snippet about ${q}` },
          ],
        },
      });
    }
    if (url.pathname === '/law') {
      return {
        headers: { 'content-type': 'text/html' },
        body: '<html><head><title>Consumer law</title></head><body><p>Consumers may return goods within 14 days of delivery, for any reason at all.</p></body></html>',
      };
    }
    if (url.pathname === '/broken')
      return { status: 503, headers: { 'content-type': 'text/plain' }, body: 'down' };
    return model(req);
  });
  for (const k of Object.keys(process.env))
    if (/^(ANTHROPIC_|OPENAI_|AGENT_|BRAVE_|TAVILY_|SEARXNG_)/.test(k)) delete process.env[k];
  process.env.OPENAI_BASE_URL = `${server.url}/v1`;
});

afterEach(async () => {
  process.env = { ...saved };
  await server.close();
});

const env = () => ({
  BRAVE_SEARCH_KEY: 'brave',
  BRAVE_SEARCH_URL: `${server.url}/search`,
  AGENT_ALLOW_HOSTS: new URL(server.url).host,
});

describe('research chain with a model', () => {
  it('plans (with one retry), collects, extracts in parallel, writes, checks citations and records every call', async () => {
    const store = sqliteStoreNow(':memory:');
    const db = store.db;
    const events: ResearchEvent[] = [];
    const dir = contentDir();
    const result = await runResearch({
      question: 'How much can a support agent refund?',
      store,
      contentDir: dir,
      env: env(),
      models: {
        provider: await createProvider('openai-compatible'),
        smallModel: 'small-m',
        largeModel: 'large-m',
      },
      runId: 'run-1',
      onEvent: (e) => events.push(e),
    });

    expect(events.filter((e) => e.type === 'step').map((e) => (e as { name: string }).name)).toEqual([
      'index',
      'plan',
      'sources',
      'extract',
      'write',
    ]);
    expect(modelCalls.map((c) => `${c.kind}:${c.model}`)).toEqual([
      'plan:small-m',
      'plan:small-m',
      'extract:large-m',
      'extract:large-m',
      'extract:large-m',
      'write:large-m',
    ]);

    // Numbered when collected: the document, then the page, then the snippet fallback.
    expect(result.sources.map((s) => [s.n, s.kind, s.status, s.title])).toEqual([
      [1, 'document', 'read', 'Refunds'],
      [2, 'web', 'read', 'Consumer law'],
      [3, 'web', 'snippet', 'Result for broken page'],
    ]);
    expect(result.sources[0]!.location).toBe(join(dir, 'policies', 'refunds.md'));
    expect(result.reports.find((r) => r.status === 'snippet')?.detail).toMatch(/HTTP 503/);
    expect(
      events.some((e) => e.type === 'notice' && /unknown documents.*policies\/unknown/.test(e.message)),
    ).toBe(true);

    // Each source's facts reach the writer under the source's number.
    const writePrompt = userText(server.requests.findLast((r) => (r.body as any)?.model === 'large-m')!);
    expect(writePrompt).toMatch(/\[1\] Refunds .*\n- fact from Refunds/);
    expect(writePrompt).toMatch(/\[2\] Consumer law .*\n- fact from Consumer law/);
    expect(writePrompt).toMatch(/\[3\] Result for broken page .*\n- fact from Result for broken page/);

    // The retry sent back the unusable reply and what was wrong with it.
    const retry = server.requests.filter((r) => (r.body as any)?.model === 'small-m')[1]!.body as any;
    expect(retry.messages.at(-2)).toEqual({ role: 'assistant', content: 'I would read the refunds policy.' });
    expect(retry.messages.at(-1).content).toMatch(/could not be used: the reply contains no JSON object/);

    expect(result.answer).toMatch(/^Agents may refund up to \$200/);
    expect(
      events
        .filter((e) => e.type === 'text')
        .map((e) => (e as { delta: string }).delta)
        .join(''),
    ).toBe(result.answer);
    expect(result.citations).toEqual({
      cited: [1, 2, 3, 7],
      dangling: [7],
      uncited: ['Larger refunds are reviewed weekly by the team in charge of them.'],
    });

    const rows = db
      .prepare('SELECT step, model FROM usage_ledger WHERE run_id = ? ORDER BY id')
      .all('run-1') as { step: string }[];
    expect(rows.map((r) => r.step)).toEqual(['plan', 'plan', 'extract', 'extract', 'extract', 'write']);
    expect(result.usage.calls).toBe(6);
    expect(result.usage.inputTokens).toBe(600);
  });

  it('ignores searches without a search key, saying so once, and sends nothing to a search service', async () => {
    const store = sqliteStoreNow(':memory:');
    const events: ResearchEvent[] = [];
    const result = await runResearch({
      question: 'refunds',
      store,
      contentDir: contentDir(),
      env: {},
      models: {
        provider: await createProvider('openai-compatible'),
        smallModel: 'small-m',
        largeModel: 'large-m',
      },
      onEvent: (e) => events.push(e),
    });
    expect(server.requests.some((r) => r.url.startsWith('/search'))).toBe(false);
    expect(result.sources.map((s) => s.kind)).toEqual(['document']);
    expect(events.filter((e) => e.type === 'notice' && /Web searches skipped/.test(e.message))).toHaveLength(
      1,
    );
    expect(result.reports.filter((r) => r.status === 'skipped')).toHaveLength(2);
  });

  it('ends with a clear error when writing fails, and produces no answer', async () => {
    const store = sqliteStoreNow(':memory:');
    server.queue.push(
      sse(chatSse({ text: '{"documents": ["policies/refunds"], "searches": []}' })),
      sse(chatSse({ text: '- a fact' })),
      json(400, { error: { message: 'context length exceeded' } }),
    );
    const events: ResearchEvent[] = [];
    await expect(
      runResearch({
        question: 'refunds',
        store,
        contentDir: contentDir(),
        env: {},
        models: { provider: await createProvider('openai-compatible'), smallModel: 's', largeModel: 'l' },
        onEvent: (e) => events.push(e),
      }),
    ).rejects.toThrow(/The write step failed: .*\(400\): context length exceeded/);
    expect(events.some((e) => e.type === 'text')).toBe(false);
  });

  it('a plan that is not usable JSON twice falls back to the best-matching documents, and says so', async () => {
    server.queue.push(sse(chatSse({ text: 'No.' })), sse(chatSse({ text: '{"documents": "all of them"}' })));
    const notices: string[] = [];
    const result = await runResearch({
      question: 'refunds',
      store: sqliteStoreNow(':memory:'),
      contentDir: contentDir(),
      env: {},
      models: { provider: await createProvider('openai-compatible'), smallModel: 's', largeModel: 'l' },
      onEvent: (e) => (e.type === 'notice' ? notices.push(e.message) : undefined),
    });
    expect(notices).toContain(
      'The plan reply was not usable JSON, asked twice: reading the best-matching local documents instead.',
    );
    expect(result.sources.map((s) => s.slug)).toContain('policies/refunds');
    expect(result.answer).toMatch(/^Agents may refund up to \$200 without approval \[1\]/);
  });

  it('shows the planner only the best full-text matches of a large folder', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agent-many-'));
    for (let i = 0; i < 80; i++)
      writeFileSync(join(dir, `doc-${i}.md`), `# Filler ${i}\n\nNothing about the topic, part ${i}.`);
    writeFileSync(join(dir, 'parking.md'), '# Parking\n\nVisitors park in bay C after signing in.');
    server.queue.push(
      sse(chatSse({ text: '{"documents": ["parking"], "searches": []}' })),
      sse(chatSse({ text: '- Visitors park in bay C.' })),
      sse(chatSse({ text: 'Visitors park in bay C [1].' })),
    );
    const result = await runResearch({
      question: 'Where do visitors park?',
      store: sqliteStoreNow(':memory:'),
      contentDir: dir,
      env: {},
      models: { provider: await createProvider('openai-compatible'), smallModel: 's', largeModel: 'l' },
    });
    const planPrompt = userText(server.requests[0]!);
    const listed = planPrompt.split('\n').filter((l) => l.startsWith('- '));
    expect(listed.length).toBeLessThanOrEqual(60);
    expect(listed[0]).toBe('- parking: Parking');
    expect(result.answer).toBe('Visitors park in bay C [1].');
  });
});

describe('extractive mode (no model)', () => {
  it('answers from the best sentences of the local documents, cited, with no model call', async () => {
    const store = sqliteStoreNow(':memory:');
    const dir = contentDir();
    const result = await runResearch({
      question: 'How much can a support agent refund without approval?',
      store,
      contentDir: dir,
      env: {},
    });
    expect(result.mode).toBe('extractive');
    expect(result.answer.split('\n')[0]).toBe(
      '- A support agent can refund up to $200 without approval. [1]',
    );
    expect(result.sources[0]).toMatchObject({
      n: 1,
      slug: 'policies/refunds',
      title: 'Refunds',
      location: join(dir, 'policies', 'refunds.md'),
    });
    expect(result.citations.dangling).toEqual([]);
    expect(result.usage.calls).toBe(0);
    expect(server.requests).toHaveLength(0);
  });
});
