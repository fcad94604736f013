import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createEmbedder, parseEmbeddingsSpec } from '../../../src/providers/embeddings.js';
import { type ResearchEvent, runResearch } from '../../../src/research/pipeline.js';
import type { ModelRequest } from '../../../src/types.js';
import { type EmbeddingsServer, startEmbeddingsServer } from '../../support/embeddings-server.js';
import { reply, scriptedProvider, text } from '../../support/scripted-provider.js';
import { sqliteStoreNow } from '../../support/stores.js';

// A research run with a model and embeddings: a long document is sent as the passages hybrid retrieval
// ranks best (a paraphrase finds its section), the passages sent are in result.retrieval, and the
// embedding calls count under --max-cost.

const QUESTION = 'Can I ride my bike to work and claim something for it?';

let server: EmbeddingsServer;
let dir: string;
beforeAll(async () => {
  server = await startEmbeddingsServer();
  dir = mkdtempSync(join(tmpdir(), 'agent-hybrid-run-'));
  // Longer than a source's budget: only its best passages are sent.
  const sections = Array.from(
    { length: 150 },
    (_, i) =>
      `## Rule ${i}\n\nWork rule ${i}: claim forms for item ${i} go to the office manager, who files claim ${i} with the work records of the team. ${'Records are kept for seven years and reviewed every quarter by the auditors of the company. '.repeat(4)}`,
  );
  sections.splice(
    97,
    0,
    `## Cycle-to-office scheme\n\nStaff who cycle to the office may join the cycle-to-office scheme: the commuting allowance pays 30 pence a mile travelled by bicycle. ${'Records are kept for seven years and reviewed every quarter by the auditors of the company. '.repeat(5)}`,
  );
  writeFileSync(join(dir, 'handbook.md'), `# Handbook\n\n${sections.join('\n\n')}\n`);
});
afterAll(() => server.close());

const step = (r: ModelRequest) =>
  r.system?.includes('You plan research')
    ? 'plan'
    : r.system?.includes('You extract facts')
      ? 'extract'
      : 'write';

it('sends the passages hybrid retrieval ranks best, and lists them in result.retrieval', async () => {
  const store = sqliteStoreNow(':memory:');
  const provider = scriptedProvider((request) => {
    const s = step(request);
    if (s === 'plan') return reply([text('```json\n{"documents": ["handbook"], "searches": []}\n```')]);
    if (s === 'extract') return reply([text('- The commuting allowance pays 30 pence a mile [1]')]);
    return reply([text('Yes: the commuting allowance pays 30 pence a mile [1].')]);
  });
  const embedder = await createEmbedder(parseEmbeddingsSpec('openai-compatible:fake-embed'), {
    AGENT_EMBEDDINGS_BASE_URL: server.baseURL,
  });
  // By keywords alone, the section's words are not the question's: it is not sent.
  const keywords = await runResearch({
    question: QUESTION,
    store,
    contentDir: dir,
    env: {},
    models: { provider, smallModel: 's', largeModel: 'l' },
    save: false,
  });
  expect(keywords.retrieval).toBeUndefined();
  expect(JSON.stringify(provider.requests.find((r) => step(r) === 'extract')!.messages)).not.toContain(
    'cycle-to-office scheme',
  );
  server.requests.length = 0;
  const result = await runResearch({
    question: QUESTION,
    store,
    contentDir: dir,
    env: {},
    models: { provider, smallModel: 's', largeModel: 'l' },
    retrieval: { mode: 'hybrid', embedder },
    save: false,
  });
  const extract = provider.requests.findLast((r) => step(r) === 'extract')!;
  const sent = JSON.stringify(extract.messages);
  expect(sent).toContain('cycle-to-office scheme');
  expect(sent).toContain('[…]'); // excerpts, not the whole handbook
  const retrieval = result.retrieval!;
  expect(retrieval.mode).toBe('hybrid');
  expect(retrieval.passages.length).toBeGreaterThan(1);
  expect(retrieval.passages.every((p) => p.document === 'handbook')).toBe(true);
  // The cycle section: found by its vector first, whatever keyword search made of it.
  expect(retrieval.passages).toContainEqual(expect.objectContaining({ vectorRank: 1 }));
  // Plan, extract and write, then the embedding requests: the question's and the passages' batches.
  expect(result.usage.calls).toBe(3 + server.requests.length);
});

it('counts embeddings under --max-cost, and stops embedding at the cap, by keywords from then on', async () => {
  const store = sqliteStoreNow(':memory:');
  const env = { AGENT_EMBEDDINGS_BASE_URL: server.baseURL, OPENAI_API_KEY: 'sk-test' };
  const embedder = await createEmbedder(parseEmbeddingsSpec('openai:text-embedding-3-small'), env);
  const run = (maxCostUsd: number) => {
    const events: ResearchEvent[] = [];
    return runResearch({
      question: QUESTION,
      store,
      contentDir: dir,
      env: {},
      retrieval: { mode: 'hybrid', embedder },
      maxCostUsd,
      save: false,
      onEvent: (e) => events.push(e),
    }).then((result) => ({ result, events }));
  };
  const { result } = await run(1);
  expect(result.usage.costUsd).toBeGreaterThan(0);
  expect(result.budget).toMatchObject({ limitUsd: 1, spentUsd: result.usage.costUsd });
  // A cap below one request: nothing is sent, and the run says why it searches by keywords.
  const before = server.requests.length;
  const capped = await run(0.000_000_1);
  expect(server.requests.length).toBe(before);
  expect(capped.result.retrieval).toMatchObject({
    mode: 'bm25',
    fallback: expect.stringMatching(/--max-cost/),
  });
  expect(capped.events.filter((e) => e.type === 'notice')).toHaveLength(1);
});

it('shows the planner of a large folder the documents hybrid retrieval finds, not only keyword matches', async () => {
  // More documents than the planner is shown (60), every other one matching the question's words.
  const big = mkdtempSync(join(tmpdir(), 'agent-hybrid-plan-'));
  for (let i = 0; i < 80; i++)
    writeFileSync(
      join(big, `rule-${i}.md`),
      `# Work rule ${i}\n\nClaim forms for item ${i} of the work records go to the office manager, who files each claim.\n`,
    );
  writeFileSync(
    join(big, 'cycle-scheme.md'),
    '# Cycle-to-office scheme\n\nStaff who cycle to the office may join the scheme: the commuting allowance pays 30 pence a mile.\n',
  );
  const store = sqliteStoreNow(':memory:');
  const provider = scriptedProvider((request) => {
    const s = step(request);
    if (s === 'plan') return reply([text('```json\n{"documents": ["cycle-scheme"], "searches": []}\n```')]);
    if (s === 'extract') return reply([text('- The commuting allowance pays 30 pence a mile [1]')]);
    return reply([text('Yes: the commuting allowance pays 30 pence a mile [1].')]);
  });
  const embedder = await createEmbedder(parseEmbeddingsSpec('openai-compatible:fake-embed'), {
    AGENT_EMBEDDINGS_BASE_URL: server.baseURL,
  });
  const planShown = async (retrieval?: Parameters<typeof runResearch>[0]['retrieval']) => {
    await runResearch({
      question: QUESTION,
      store,
      contentDir: big,
      env: {},
      models: { provider, smallModel: 's', largeModel: 'l' },
      ...(retrieval ? { retrieval } : {}),
      save: false,
    });
    return JSON.stringify(provider.requests.findLast((r) => step(r) === 'plan')!.messages);
  };
  // By keywords, the 60 documents shown are rules that share the question's words.
  const byKeywords = await planShown();
  expect(byKeywords).toContain('rule-');
  expect(byKeywords).not.toContain('cycle-scheme');
  expect(await planShown({ mode: 'hybrid', embedder })).toContain('cycle-scheme');
});

it('embeds a folder once when runs of a batch start together', async () => {
  const embedder = await createEmbedder(parseEmbeddingsSpec('openai-compatible:fake-embed'), {
    AGENT_EMBEDDINGS_BASE_URL: server.baseURL,
  });
  const questions = ['Who files claim forms?', 'How long are records kept?', 'What does cycling pay?'];
  const texts = () => server.requests.reduce((n, r) => n + r.count, 0);
  const run = (store: ReturnType<typeof sqliteStoreNow>, question: string, indexed = false) =>
    runResearch({
      question,
      store,
      contentDir: dir,
      env: {},
      retrieval: { mode: 'hybrid', embedder },
      save: false,
      indexed,
    });
  // One run alone embeds the folder's passages and its question.
  server.requests.length = 0;
  await run(sqliteStoreNow(':memory:'), questions[0]!);
  const alone = texts();
  // A batch indexes once, then its runs start together: the folder is embedded once, by one of them.
  const store = sqliteStoreNow(':memory:');
  await runResearch({ question: 'warm-up', store, contentDir: dir, env: {}, save: false });
  server.requests.length = 0;
  await Promise.all(questions.map((q) => run(store, q, true)));
  expect(texts()).toBe(alone + questions.length - 1);
});
