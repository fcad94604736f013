#!/usr/bin/env node
// Hybrid retrieval at scale: a generated folder of 100,000 passages (10,000 Markdown files of ten
// sections each) is indexed (BM25), then embedded, then searched with hybrid queries. Prints: the hybrid
// query's median and p95 (BM25, nearest vectors, fusion and the passages' texts; the question's own
// embedding is excluded, it is the server's time), the embedding step's time beyond the embedding calls
// themselves (reading texts, quantizing, writing vectors) against the BM25 indexing time, and the
// database's size on disk ÷ the text's size, before and after vectors. The embedding model is
// in-process (a hashed bag of words), so only our side is timed: 1,536 numbers a vector as an
// OpenAI-compatible server sends them, or (--model=openai) 512 float32s as OpenAI sends
// text-embedding-3-small's when agent asks. --server: the same model behind a loopback server
// (bench/support/hashed-embedder.mjs, a child process), timed against a bare client's same requests.
// PostgreSQL: PGlite with pgvector (in WebAssembly, one core; [pg passages], default 20,000), or the server
// AGENT_TEST_DATABASE_URL names (give it a database of its own: the bench fills it).
// Usage: npm run build && node bench/retrieval-speed.mjs [passages] [pg passages] [queries] [--model=openai] [--server]

import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createEmbedder, parseEmbeddingsSpec } from '../dist/providers/embeddings.js';
import { embeddingText } from '../dist/research/documents/embedding-text.js';
import { queryTerms, refreshIndex } from '../dist/research/documents/index.js';
import { BATCH_TEXTS } from '../dist/research/retrieval/embed-index.js';
import { Retriever } from '../dist/research/retrieval/retriever.js';
import { openStore } from '../dist/store/open.js';
import { hashedVector } from './support/hashed-embedder.mjs';
import { syntheticText } from './support/synthetic-text.mjs';

const [passages = 100_000, pgPassages = 20_000, queryCount = 60] = process.argv
  .slice(2)
  .filter((a) => !a.startsWith('--'))
  .map(Number);
const { word, sentence } = syntheticText(7, 8000);

/** Ten sections of about 1,000 characters each per file: one passage each (at most 1,500). */
function makeFolder(count) {
  const dir = mkdtempSync(join(tmpdir(), 'agent-bench-retrieval-'));
  let bytes = 0;
  for (let f = 0; f < count / 10; f++) {
    const folder = join(dir, `team-${f % 100}`);
    if (f < 100) mkdirSync(folder);
    const parts = [`# ${word()} handbook ${f}\n`];
    for (let s = 0; s < 10; s++)
      parts.push(`## ${word()} ${word()} ${s}\n`, `${Array.from({ length: 10 }, sentence).join(' ')}\n`);
    const text = parts.join('\n');
    bytes += Buffer.byteLength(text);
    writeFileSync(join(folder, `doc-${f}.md`), text);
  }
  return { dir, bytes };
}

// The in-process model, as each kind of server hands its vectors over: an OpenAI-compatible server's
// 1,536 JSON numbers (arrays of numbers: the most work on our side, folding and collecting them), or
// OpenAI's text-embedding-3-small as agent asks for it, 512 dimensions in base64 (Float32Arrays).
const OPENAI = process.argv.includes('--model=openai');
const DIMS = OPENAI ? 512 : 1536;
/** `spent` is the time inside embed(), which the overhead leaves out. */
const inProcess = {
  provider: OPENAI ? 'openai' : 'openai-compatible',
  model: OPENAI ? 'text-embedding-3-small' : 'bench-1536',
  label: OPENAI ? 'openai:text-embedding-3-small' : 'openai-compatible:bench-1536',
  spent: 0,
  async embed(texts) {
    const start = performance.now();
    const vectors = texts.map((t) => hashedVector(t, DIMS, OPENAI ? Float32Array : Array));
    this.spent += performance.now() - start;
    return { vectors, inputTokens: texts.reduce((n, t) => n + Math.ceil(t.length / 4), 0) };
  },
};

// --server: the same model behind a loopback server in a child process, reached through agent's own
// client (the SDK, its checks, retries and limits) as a real one is. The overhead is then the embedding
// step's time beyond that of the same requests sent by a bare client (fetch, the reply parsed and its
// vectors decoded, 4 at once): a reference measured in the same run.
const SERVER = process.argv.includes('--server');
let server;
if (SERVER) {
  const child = spawn(
    process.execPath,
    [fileURLToPath(new URL('./support/hashed-embedder.mjs', import.meta.url)), '--dims', '1536'],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const url = await new Promise((resolve) => child.stdout.once('data', (d) => resolve(String(d).trim())));
  server = { url, close: () => child.kill() };
}
const embedder = SERVER
  ? await createEmbedder(parseEmbeddingsSpec(inProcess.label), {
      AGENT_EMBEDDINGS_BASE_URL: server.url,
      OPENAI_API_KEY: 'bench',
    })
  : inProcess;

/** The same requests agent made for the folder's passages, from a bare client: how long they take. */
async function bareClient(store, dir) {
  const read = store.index.spanReader();
  const rows = await store.vectors.missing(dir, 'bench-reference@0', Number.MAX_SAFE_INTEGER, 0);
  const unique = [...new Map(rows.map((r) => [r.hash, r])).values()];
  const texts = await Promise.all(
    unique.map(async (r) => embeddingText(r.headingPath, await read(r.documentId, r.start, r.end))),
  );
  const batches = [];
  for (let i = 0; i < texts.length; i += BATCH_TEXTS) batches.push(texts.slice(i, i + BATCH_TEXTS));
  const start = performance.now();
  let next = 0;
  const lane = async () => {
    while (next < batches.length) {
      const input = batches[next++];
      const res = await fetch(`${server.url}/embeddings`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer bench' },
        body: JSON.stringify({
          model: inProcess.model,
          input,
          ...(OPENAI ? { dimensions: 512, encoding_format: 'base64' } : {}),
        }),
      });
      const { data } = await res.json();
      if (OPENAI) for (const d of data) new Float32Array(Buffer.from(d.embedding, 'base64').buffer.slice(0));
    }
  };
  await Promise.all([lane(), lane(), lane(), lane()]);
  return performance.now() - start;
}

const percentiles = (ms) => {
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (p) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))].toFixed(1);
  return `median ${at(0.5)} ms, p95 ${at(0.95)} ms`;
};

async function measure(name, count, store, dir, bytes, sizeOf) {
  const t0 = performance.now();
  await refreshIndex(store, dir);
  const indexMs = performance.now() - t0;
  const before = await sizeOf();
  inProcess.spent = 0;
  const retriever = new Retriever(
    { mode: 'hybrid', embedder },
    { store, root: dir, runId: 'bench', emit: () => {}, concurrency: 4 },
  );
  const t1 = performance.now();
  await retriever.prepare('warm up the question');
  const embedMs = performance.now() - t1;
  if (retriever.mode !== 'hybrid') {
    console.log(`${name}: ${retriever.report().fallback}`);
    return;
  }
  const after = await sizeOf();
  // PostgreSQL: queries are timed on the tables as autovacuum leaves them after a load (vacuumed,
  // analysed), not while it is at work on them beside the queries.
  if (store.kind === 'postgres') await store.db.query('VACUUM (ANALYZE)');
  const reference = SERVER ? await bareClient(store, dir) : inProcess.spent;
  const overhead = embedMs - reference;
  const questions = Array.from(
    { length: queryCount },
    // Not "rule": every generated sentence has it, and BM25 would walk all 100,000 postings for it.
    () => `What about ${word()} and ${word()} for ${word()}?`,
  );
  for (const q of questions) await retriever.passages(q, 1); // each question embedded once, as a run does
  const latencies = [];
  const keyword = [];
  const vector = [];
  const space = `${embedder.label}@${DIMS}`;
  for (const q of questions) {
    let start = performance.now();
    await retriever.passages(q, 16);
    latencies.push(performance.now() - start);
    // Its parts: the keyword ranking and the vector ranking alone (50 candidates each, as the fusion takes).
    start = performance.now();
    await store.index.searchPassages(dir, queryTerms(q), 50);
    keyword.push(performance.now() - start);
    const [v] = (await embedder.embed([q])).vectors;
    start = performance.now();
    await store.vectors.nearest(dir, space, v, 50);
    vector.push(performance.now() - start);
  }
  const mb = bytes / 2 ** 20;
  console.log(`${name}: ${count.toLocaleString()} passages, ${mb.toFixed(0)} MB of text, ${DIMS} dimensions`);
  console.log(`  hybrid query          ${percentiles(latencies)}`);
  console.log(`    of which BM25       ${percentiles(keyword)}`);
  console.log(`    and vectors         ${percentiles(vector)}`);
  console.log(`  BM25 index            ${(indexMs / 1000).toFixed(1)} s`);
  console.log(
    `  embedding step        ${(embedMs / 1000).toFixed(1)} s, ${SERVER ? 'the same requests from a bare client' : 'of which the model'} ${(reference / 1000).toFixed(1)} s: overhead ${(overhead / 1000).toFixed(1)} s = ${((overhead / indexMs) * 100).toFixed(0)}% of the BM25 index time`,
  );
  console.log(
    `  on disk               ${(before / bytes).toFixed(2)} × the text before vectors, ${(after / bytes).toFixed(2)} × after`,
  );
}

/** The tests' PGlite server (test/support/pglite-server.ts), compiled by esbuild for this run. */
async function loadPgliteServer() {
  const { transform } = await import('esbuild');
  const root = new URL('..', import.meta.url);
  const source = readFileSync(new URL('test/support/pglite-server.ts', root), 'utf8');
  const { code } = await transform(source, { loader: 'ts', format: 'esm' });
  const cache = new URL('node_modules/.cache/agent-bench/', root);
  mkdirSync(cache, { recursive: true });
  const file = new URL('pglite-server.mjs', cache);
  writeFileSync(file, code);
  return (await import(file.href)).servePglite;
}

// SQLite
{
  const { dir, bytes } = makeFolder(passages);
  const dbDir = mkdtempSync(join(tmpdir(), 'agent-bench-retrieval-db-'));
  const store = await openStore(join(dbDir, 'bench.db'));
  const sizeOf = async () => {
    store.db.pragma('wal_checkpoint(TRUNCATE)');
    return readdirSync(dbDir).reduce((n, f) => n + statSync(join(dbDir, f)).size, 0);
  };
  await measure('SQLite (sqlite-vec, int8)', passages, store, dir, bytes, sizeOf);
  await store.close();
  rmSync(dir, { recursive: true, force: true });
  rmSync(dbDir, { recursive: true, force: true });
}

// PostgreSQL
if (pgPassages > 0) {
  const { dir, bytes } = makeFolder(pgPassages);
  let url = process.env.AGENT_TEST_DATABASE_URL;
  let stop = async () => {};
  if (!url) {
    const { PGlite } = await import('@electric-sql/pglite');
    const { vector } = await import('@electric-sql/pglite-pgvector');
    const servePglite = await loadPgliteServer();
    const lite = await PGlite.create({ extensions: { vector } });
    const server = await servePglite(lite);
    url = `postgres://postgres:bench@127.0.0.1:${server.port}/postgres`;
    stop = async () => {
      await server.stop();
      await lite.close();
    };
  }
  const store = await openStore(url);
  const sizeOf = async () =>
    Number((await store.db.one('SELECT pg_catalog.pg_database_size(pg_catalog.current_database()) AS n')).n);
  const name = `PostgreSQL (pgvector bit scan, int8 bytes${process.env.AGENT_TEST_DATABASE_URL ? '' : ', PGlite'})`;
  await measure(name, pgPassages, store, dir, bytes, sizeOf).catch((error) =>
    console.log(`PostgreSQL: ${error.message}`),
  );
  await store.close();
  await stop();
  rmSync(dir, { recursive: true, force: true });
}
server?.close();
