import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createEmbedder, parseEmbeddingsSpec } from '../../../src/providers/embeddings.js';
import { refreshIndex } from '../../../src/research/documents/index.js';
import { prepareFile } from '../../../src/research/documents/prepare.js';
import { Retriever } from '../../../src/research/retrieval/retriever.js';
import type { RetrievalMode } from '../../../src/research/retrieval/settings.js';
import { StoreError } from '../../../src/store/errors.js';
import type { Store } from '../../../src/store/store.js';
import { type EmbeddingsServer, startEmbeddingsServer } from '../../support/embeddings-server.js';
import { postgresStoreUnderTest } from '../../support/pg.js';
import { type StoreUnderTest, sqliteStore } from '../../support/stores.js';

// Hybrid retrieval end to end on each store: the index embedded through the real openai SDK (and
// Ollama's wire format) against a loopback embeddings server, re-embedding only what changed, model
// switches, the ledger, and every fault falling back to BM25.

const QUESTION = 'Can I ride my bike to work and claim something for it?';

const DOCS: Record<string, string> = {
  'commuting.md':
    '# Commuting\n\n## Cycle-to-office scheme\n\nStaff who cycle to the office may join the cycle-to-office scheme. The commuting allowance pays 30 pence a mile travelled by bicycle.\n',
  'remote.md':
    '# Remote work\n\nYou may work from home two days a week. Work equipment: claim a monitor and a chair once, and claim internet costs monthly. Work hours stay the same.\n',
  'security.md':
    '# Security\n\n## Badges\n\nBadge code ZX-4471 opens the server room. Lost badges are replaced by the front desk within 2 days.\n',
  'travel.md':
    '# Travel\n\nTrain tickets are booked through the portal. Hotels up to $180 a night are approved without a manager.\n',
};

function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'agent-hybrid-'));
  for (const [name, text] of Object.entries(DOCS)) writeFileSync(join(dir, name), text);
  return dir;
}

/** Distinct passage texts of the folder. */
async function passageCount(store: Store, dir: string): Promise<number> {
  let n = 0;
  for (const doc of await store.index.list(dir))
    n += (await store.index.passageSpans((await store.index.find(dir, doc.slug))!.id)).length;
  return n;
}

const sqliteUnder = (): StoreUnderTest => {
  let store: Store | undefined;
  return {
    name: 'sqlite',
    open: async () => (store ??= await sqliteStore()),
    close: async () => {
      await store?.close();
      store = undefined;
    },
  };
};

let server: EmbeddingsServer;
beforeAll(async () => {
  server = await startEmbeddingsServer();
});
afterAll(() => server.close());

for (const under of [sqliteUnder(), postgresStoreUnderTest({ vector: true })]) {
  // PGlite starts and migrates in WebAssembly: slow on a busy machine.
  describe(`hybrid retrieval on ${under.name}`, () => {
    const dirs: string[] = [];
    afterEach(async () => {
      server.fault = 'none';
      server.texts.clear();
      server.requests.length = 0;
      await under.close();
      for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
    });

    async function setUp(spec = 'openai-compatible:fake-embed', env: Record<string, string> = {}) {
      const store = await under.open();
      const dir = folder();
      dirs.push(dir);
      await refreshIndex(store, dir);
      return { store, dir, ...(await retrieverFor(store, dir, spec, 'hybrid', env)) };
    }

    async function retrieverFor(
      store: Store,
      dir: string,
      spec: string,
      mode: RetrievalMode,
      env: Record<string, string> = {},
      signal?: AbortSignal,
    ) {
      const embedder = await createEmbedder(parseEmbeddingsSpec(spec), {
        AGENT_EMBEDDINGS_BASE_URL: spec.startsWith('ollama') ? server.url : server.baseURL,
        // Generous: a request timed out under load is sent again, and would be embedded twice.
        AGENT_EMBEDDINGS_TIMEOUT_MS: '15000',
        ...env,
      });
      const notices: string[] = [];
      const retriever = new Retriever(
        { mode, embedder },
        {
          store,
          root: dir,
          runId: 'run-1',
          emit: (e) => {
            if (e.type === 'notice') notices.push(e.message);
          },
          concurrency: signal ? 1 : 4,
          signal,
        },
      );
      return { retriever, notices };
    }

    it('embeds every passage once, and finds a paraphrase that keyword search misses', async () => {
      const { store, dir, retriever, notices } = await setUp();
      if (await store.vectors.unavailable()) return; // a real server without pgvector: see the fallback test
      await retriever.prepare(QUESTION);
      expect(notices).toEqual([]);
      const passages = (server.texts.get('fake-embed') ?? []).length;
      expect(passages).toBe(1 + (await passageCount(store, dir))); // the question, then each passage
      const hybrid = await retriever.passages(QUESTION, 5);
      const bm25 = await (
        await retrieverFor(store, dir, 'openai-compatible:fake-embed', 'bm25')
      ).retriever.passages(QUESTION, 5);
      expect(bm25.map((p) => p.slug)).not.toContain('commuting');
      expect(hybrid.map((p) => p.slug).slice(0, 3)).toContain('commuting');
      const commuting = hybrid.find((p) => p.slug === 'commuting')!;
      expect(commuting).toMatchObject({ bm25Rank: null, vectorRank: 1 });
      const semantic = await (await retrieverFor(store, dir, 'openai-compatible:fake-embed', 'semantic'))
        .retriever;
      await semantic.prepare(QUESTION);
      expect((await semantic.passages(QUESTION, 5))[0]!.slug).toBe('commuting');
      // The question was embedded once per retriever, and nothing more was asked of the server.
      expect(server.texts.get('fake-embed')!.length).toBe(passages + 1);
      expect(retriever.report()).toMatchObject({
        mode: 'hybrid',
        embeddings: 'openai-compatible:fake-embed',
      });
      expect(retriever.report().passages[0]).toEqual({
        document: hybrid[0]!.slug,
        bm25Rank: hybrid[0]!.bm25Rank,
        vectorRank: hybrid[0]!.vectorRank,
        score: hybrid[0]!.score,
      });
    });

    it('ranks a passage holding the query’s code first', async () => {
      const { store, retriever } = await setUp();
      if (await store.vectors.unavailable()) return;
      const question = 'Which room does ZX-4471 open?';
      await retriever.prepare(question);
      expect((await retriever.passages(question, 5))[0]!.slug).toBe('security');
    });

    it('embeds only new and changed passages; a model switch embeds all, switching back none', async () => {
      const { store, dir, retriever } = await setUp();
      if (await store.vectors.unavailable()) return;
      await retriever.prepare(QUESTION);
      server.texts.clear();
      writeFileSync(join(dir, 'travel.md'), `${DOCS['travel.md']}\nTaxis need a receipt.\n`);
      writeFileSync(join(dir, 'new.md'), '# Parking\n\nCar parking costs nothing on Fridays.\n');
      await refreshIndex(store, dir);
      const again = (await retrieverFor(store, dir, 'openai-compatible:fake-embed', 'hybrid')).retriever;
      await again.prepare(QUESTION);
      const texts = server.texts.get('fake-embed')!;
      expect(texts).toHaveLength(3); // the question, the changed passage, the new one
      expect(texts.slice(1).join('\n')).toMatch(/Taxis need a receipt/);
      expect(texts.slice(1).join('\n')).toMatch(/Car parking/);

      server.texts.clear();
      const other = (await retrieverFor(store, dir, 'openai-compatible:other-embed', 'hybrid')).retriever;
      await other.prepare(QUESTION);
      expect(server.texts.get('other-embed')).toHaveLength(1 + (await passageCount(store, dir)));
      server.texts.clear();
      const back = (await retrieverFor(store, dir, 'openai-compatible:fake-embed', 'hybrid')).retriever;
      await back.prepare(QUESTION);
      expect(server.texts.get('fake-embed')).toHaveLength(1);
    });

    it('embeds a folder once when several runs of one process prepare at the same moment', async () => {
      const { store, dir } = await setUp();
      if (await store.vectors.unavailable()) return;
      const runs = await Promise.all(
        [1, 2, 3].map(
          async () => (await retrieverFor(store, dir, 'openai-compatible:fake-embed', 'hybrid')).retriever,
        ),
      );
      // Each run's question embedded first: their prepare() calls then move in step.
      await Promise.all(runs.map((r) => r.passages(QUESTION, 1)));
      await Promise.all(runs.map((r) => r.prepare(QUESTION)));
      const texts = server.texts.get('fake-embed')!.filter((t) => t !== QUESTION);
      expect(texts).toHaveLength(await passageCount(store, dir));
      expect(new Set(texts).size).toBe(texts.length);
    });

    it('looks for missing passages once while the index stays as it was, again once a document is written', async () => {
      const { store, dir, retriever } = await setUp();
      if (await store.vectors.unavailable()) return;
      const looked = vi.spyOn(store.vectors, 'countMissing');
      await retriever.prepare(QUESTION);
      const next = async () => {
        const r = (await retrieverFor(store, dir, 'openai-compatible:fake-embed', 'hybrid')).retriever;
        await r.prepare(QUESTION);
        return r;
      };
      await next();
      await next();
      expect(looked).toHaveBeenCalledTimes(1);
      // A document written again during a run (its file changed since the walk) is looked for and embedded.
      server.texts.clear();
      const doc = (await store.index.find(dir, 'travel'))!;
      writeFileSync(doc.path, `${DOCS['travel.md']}\nTaxis need a receipt.\n`);
      const size = statSync(doc.path).size;
      const read = await prepareFile(doc.path, { size });
      await store.index.write(dir, [{ ...read, slug: 'travel', path: doc.path, mtimeMs: 1, size }], [doc.id]);
      const after = await next();
      expect(looked).toHaveBeenCalledTimes(2);
      expect(server.texts.get('fake-embed')!.join('\n')).toMatch(/Taxis need a receipt/);
      expect((await after.passages('taxi receipt', 3)).map((p) => p.slug)).toContain('travel');
      looked.mockRestore();
    });

    it('stops calling once a call’s ledger row cannot be written, and writes every other row', async () => {
      const { store, dir } = await setUp();
      if (await store.vectors.unavailable()) return;
      // 400 passages more: seven requests of 64 at one call in flight.
      for (let d = 0; d < 100; d++) {
        const parts = [0, 1, 2, 3].map((s) => `## Part ${s}\n\nItem ${d}-${s} costs ${d * 4 + s} pounds.\n`);
        writeFileSync(join(dir, `list-${d}.md`), `# List ${d}\n\n${parts.join('\n')}`);
      }
      await refreshIndex(store, dir);
      server.requests.length = 0;
      const record = store.ledger.record.bind(store.ledger);
      let rows = 0;
      const spy = vi.spyOn(store.ledger, 'record').mockImplementation(async (entry, prices) => {
        if (++rows === 3) throw new Error('disk I/O error');
        return record(entry, prices);
      });
      // A signal makes the retriever's concurrency 1: one call in flight at a time.
      const controller = new AbortController();
      const { retriever, notices } = await retrieverFor(
        store,
        dir,
        'openai-compatible:fake-embed',
        'hybrid',
        {},
        controller.signal,
      );
      await retriever.prepare(QUESTION);
      spy.mockRestore();
      expect(notices.join('\n')).toMatch(/disk I\/O error/);
      // The question, two batches, the batch whose row failed, and at most one already on its way.
      expect(server.requests.length).toBeLessThanOrEqual(5);
      const report = await store.ledger.report({ by: 'model' });
      expect(report.rows.find((r) => r.key.includes('fake-embed'))!.calls).toBe(rows - 1);
    });

    it('speaks Ollama’s /api/embed, and records every call in the ledger as step embed', async () => {
      const { store, dir } = await setUp();
      if (await store.vectors.unavailable()) return;
      const { retriever } = await retrieverFor(store, dir, 'ollama:nomic-embed-text', 'hybrid');
      await retriever.prepare(QUESTION);
      expect(server.requests.every((r) => r.path === '/api/embed')).toBe(true);
      expect(server.texts.get('nomic-embed-text')).toHaveLength(1 + (await passageCount(store, dir)));
      const report = await store.ledger.report({ by: 'model' });
      const row = report.rows.find((r) => r.key.includes('nomic-embed-text'))!;
      expect(row.calls).toBe(retriever.usage.calls);
      expect(row.inputTokens).toBe(retriever.usage.inputTokens);
      expect(row.costUsd).toBe(0); // local: free
    });

    it('asks OpenAI for shortened vectors and refuses another model’s vectors', async () => {
      const { store, dir } = await setUp();
      if (await store.vectors.unavailable()) return;
      const env = { OPENAI_API_KEY: 'sk-test' };
      const { retriever, notices } = await retrieverFor(store, dir, 'openai', 'hybrid', env);
      await retriever.prepare(QUESTION);
      expect(server.requests[0]).toMatchObject({ model: 'text-embedding-3-small', dimensions: 512 });
      expect(notices).toEqual([]);
      server.fault = 'model';
      const wrong = await retrieverFor(store, dir, 'openai:text-embedding-3-large', 'hybrid', env);
      await wrong.retriever.prepare(QUESTION);
      expect(wrong.retriever.mode).toBe('bm25');
      expect(wrong.notices).toHaveLength(1);
      expect(wrong.notices[0]).toMatch(/some-other-model.*keywords \(BM25\) only/);
    });

    for (const fault of ['down', 'slow', 'dims', 'error'] as const)
      it(`falls back to BM25, saying so once, when the server is ${fault}`, async () => {
        const { store, retriever, notices } = await setUp('openai-compatible:fake-embed', {
          AGENT_EMBEDDINGS_TIMEOUT_MS: '500',
        });
        server.fault = fault === 'dims' ? 'none' : fault;
        server.slowMs = 3000;
        await retriever.prepare(QUESTION);
        if (fault === 'dims' && !(await store.vectors.unavailable())) {
          // The question came back at one size, the passages at others: no mixing, keywords instead.
          server.fault = 'dims';
          await retriever.passages('another wording of it', 5);
        }
        expect(retriever.mode).toBe('bm25');
        expect(notices).toHaveLength(1);
        expect(notices[0]).toMatch(/keywords \(BM25\) only/);
        const hits = await retriever.passages('Which room does ZX-4471 open?', 5);
        expect(hits[0]!.slug).toBe('security');
        expect(retriever.report()).toMatchObject({ mode: 'bm25', fallback: expect.any(String) });
      });

    it('falls back to BM25, saying so once, when the vector search itself fails (a role without the rights)', async () => {
      const { store, dir, retriever, notices } = await setUp();
      if (await store.vectors.unavailable()) return;
      await retriever.prepare(QUESTION);
      const denied = new StoreError('io', store.location, 'the PostgreSQL role has no right to do this');
      const nearest = vi.spyOn(store.vectors, 'nearest').mockRejectedValue(denied);
      try {
        const hits = await retriever.passages('Which room does ZX-4471 open?', 5);
        expect(hits[0]!.slug).toBe('security');
        expect(hits.every((h) => h.vectorRank === null)).toBe(true);
        // A long document's passages are ranked by keywords alone too.
        const doc = (await store.index.find(dir, 'commuting'))!;
        expect(await retriever.rankInDocument(doc.id, 'commuting', ['cycle allowance'])).not.toEqual([]);
        expect(retriever.mode).toBe('bm25');
        expect(notices).toEqual([expect.stringMatching(/no right to do this.*keywords \(BM25\) only/)]);
        expect(nearest).toHaveBeenCalledTimes(1);
      } finally {
        nearest.mockRestore();
      }
    });

    it('resumes a half-embedded index where it stopped', async () => {
      const { store, dir, retriever } = await setUp();
      if (await store.vectors.unavailable()) return;
      const controller = new AbortController();
      await retriever.prepare(QUESTION);
      const space = 'openai-compatible:fake-embed@64';
      expect(await store.vectors.countMissing(dir, space)).toBe(0);
      // A hundred new passages; the first batch of them is kept, then the run is cancelled.
      for (let i = 0; i < 100; i++)
        writeFileSync(join(dir, `extra-${i}.md`), `# Extra ${i}\n\nFact number ${i}.\n`);
      await refreshIndex(store, dir);
      const spec = 'openai-compatible:fake-embed';
      const stopped = (await retrieverFor(store, dir, spec, 'hybrid', {}, controller.signal)).retriever;
      await expect(
        stopped.prepare(QUESTION, (done) => {
          if (done >= 64) controller.abort();
        }),
      ).rejects.toThrow(/Cancelled/);
      const left = await store.vectors.countMissing(dir, space);
      expect(left).toBeGreaterThan(0);
      expect(left).toBeLessThan(100);
      server.texts.clear();
      await (await retrieverFor(store, dir, spec, 'hybrid')).retriever.prepare(QUESTION);
      expect(server.texts.get('fake-embed')).toHaveLength(1 + left);
    });
  });
}

describe('a PostgreSQL server without pgvector', () => {
  const under = postgresStoreUnderTest();
  afterAll(() => under.close());

  it('says so in one line, and documents are searched by keywords as before', async () => {
    const store = await under.open();
    const dir = folder();
    try {
      await refreshIndex(store, dir);
      const reason = await store.vectors.unavailable();
      if (!reason) return; // a real server that has pgvector: the tests above cover it
      expect(reason).toMatch(/pgvector/);
      const embedder = await createEmbedder(parseEmbeddingsSpec('openai-compatible:fake-embed'), {
        AGENT_EMBEDDINGS_BASE_URL: server.baseURL,
      });
      const notices: string[] = [];
      const retriever = new Retriever(
        { mode: 'hybrid', embedder },
        {
          store,
          root: dir,
          runId: 'r',
          emit: (e) => e.type === 'notice' && notices.push(e.message),
          concurrency: 2,
        },
      );
      await retriever.prepare(QUESTION);
      expect(notices).toHaveLength(1);
      expect(notices[0]).toMatch(/no pgvector.*keywords \(BM25\) only this run\.$/);
      expect(retriever.mode).toBe('bm25');
      expect((await retriever.passages('Which room does ZX-4471 open?', 3))[0]!.slug).toBe('security');
      expect(server.requests).toHaveLength(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
