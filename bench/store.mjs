#!/usr/bin/env node
// The store on PostgreSQL beside SQLite: the research chain's bookkeeping (a run started with its plan,
// each source and its facts recorded as they arrive, the ledger rows of its model calls, the save with
// its texts: each a transaction of its own) and a passage search over an indexed folder. PostgreSQL is
// PGlite served on a loopback port (PostgreSQL in WebAssembly, in this process: its CPU time counts
// here), or the server AGENT_BENCH_DATABASE_URL names (postgres://…; its work is on the server).
// Rounds alternate between the two databases, so a busy machine slows both alike.
// Usage: npm run build && node bench/store.mjs [runs per round] [rounds] [folder copies]
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { prepareFile } from '../dist/research/documents/prepare.js';
import * as sqliteSearch from '../dist/research/documents/search.js';
import { listContentFiles } from '../dist/research/documents/walk.js';
import * as sqliteOpen from '../dist/store/open.js';
import { openPostgres } from '../dist/store/postgres/open.js';

const runsPerRound = Number(process.argv[2] ?? 40);
const rounds = Number(process.argv[3] ?? 3);
const copies = Number(process.argv[4] ?? 20);
const usage = { input: 2000, cacheRead: 0, cacheWrite: 0, output: 300, reasoning: 0 };

/** SQLite as a Store: the store itself once it is one (store19), else the functions of today's modules. */
async function sqliteStore(path) {
  const opened = await sqliteOpen.openStore(path);
  if ('progress' in opened) return opened;
  const db = opened;
  const [progress, ledger, runs] = await Promise.all([
    import('../dist/store/run-progress.js'),
    import('../dist/store/ledger.js'),
    import('../dist/store/research-runs.js'),
  ]);
  const { refreshIndex } = await import('../dist/research/documents/refresh.js');
  return {
    progress: {
      start: async (run) => progress.startRun(db, run),
      recordSource: async (id, key, source, text) => progress.recordSource(db, id, key, source, text),
      recordFacts: async (id, key, facts) => progress.recordFacts(db, id, key, facts),
    },
    ledger: { record: async (entry) => ledger.recordCall(db, entry) },
    runs: { save: async (run) => runs.saveRun(db, run) },
    index: {
      write: async (root) => refreshIndex(db, root),
      searchPassages: async (root, terms, limit) =>
        sqliteSearch.searchPassages(db, root, terms.join(' '), limit),
    },
    close: async () => db.close(),
  };
}

async function postgresStore() {
  if (process.env.AGENT_BENCH_DATABASE_URL)
    return {
      store: await openPostgres(process.env.AGENT_BENCH_DATABASE_URL),
      what: 'PostgreSQL server',
      stop: async () => {},
    };
  const lite = await PGlite.create();
  const server = new PGLiteSocketServer({ db: lite, port: 0, host: '127.0.0.1', maxConnections: 8 });
  await server.start();
  const port = server.getServerConn().split(':').at(-1);
  const store = await openPostgres(`postgres://postgres@127.0.0.1:${port}/postgres`);
  const stop = async () => {
    await server.stop();
    await lite.close();
  };
  return { store, what: 'PostgreSQL (PGlite)', stop };
}

/** One research run's bookkeeping, as the chain does it: 6 sources, 8 model calls, the save. */
async function oneRun(store, n) {
  const ledgerId = `bench-${process.pid}-${n}-${Math.random()}`;
  const id = await store.progress.start({
    question: `Question ${n}?`,
    createdAt: Date.now(),
    ledgerId,
    options: { depth: 1 },
    holder: `bench:${process.pid}:x`,
    plan: { searches: ['a', 'b'] },
  });
  const texts = [];
  for (let s = 1; s <= 6; s++) {
    const text = `Source ${s} of run ${n}. `.repeat(400);
    texts.push({ n: s, text });
    await store.progress.recordSource(id, `doc:${s}`, { title: `S${s}` }, text);
    await store.ledger.record({
      command: 'research',
      runId: ledgerId,
      step: 'extract',
      provider: 'openai',
      model: 'gpt-4o-mini',
      usage,
    });
    await store.progress.recordFacts(id, `doc:${s}`, `Fact ${s} [${s}]`);
  }
  for (const step of ['plan', 'write'])
    await store.ledger.record({
      command: 'research',
      runId: ledgerId,
      step,
      provider: 'openai',
      model: 'gpt-4o-mini',
      usage,
    });
  await store.runs.save({
    id,
    question: `Question ${n}?`,
    mode: 'model',
    answer: 'Answer [1].',
    costUsd: 0.01,
    result: { n },
    texts,
  });
}

const measure = async (work) => {
  const cpu = process.cpuUsage();
  const start = performance.now();
  await work();
  const used = process.cpuUsage(cpu);
  return { wall: performance.now() - start, cpu: (used.user + used.system) / 1000 };
};

const root = mkdtempSync(join(tmpdir(), 'agent-bench-store-'));
for (let i = 0; i < copies; i++)
  cpSync(new URL('../content/', import.meta.url), join(root, `copy-${i}`), { recursive: true });
const docs = [];
for (const file of listContentFiles(root).files) {
  const p = await prepareFile(file.path);
  const parse = (v) => (typeof v === 'string' ? JSON.parse(v) : v);
  docs.push({
    slug: file.slug,
    path: file.path,
    title: p.title,
    mtimeMs: file.mtimeMs,
    size: file.size,
    chars: p.chars,
    blocks: p.blocks,
    spans: parse(p.spans),
    texts: parse(p.texts),
  });
}

const sqlite = await sqliteStore(join(mkdtempSync(join(tmpdir(), 'agent-bench-db-')), 'agent.db'));
const pg = await postgresStore();
const sides = [
  { name: 'SQLite', store: sqlite, runs: [], search: [] },
  { name: pg.what, store: pg.store, runs: [], search: [] },
];
await sides[0].store.index.write(root, docs, []);
await sides[1].store.index.write(root, docs, []);

const queries = [
  'How much can a support agent refund without approval?',
  'What is the hotel limit in London, and does it include tax?',
  'How long is customer data kept?',
  'warranty claim for a damaged product',
  'remote work equipment allowance',
];
let n = 0;
for (let round = 0; round < rounds; round++)
  for (const side of round % 2 ? [...sides].reverse() : sides) {
    side.runs.push(
      await measure(async () => {
        for (let i = 0; i < runsPerRound; i++) await oneRun(side.store, n++);
      }),
    );
    side.search.push(
      await measure(async () => {
        for (const q of queries) await side.store.index.searchPassages(root, sqliteSearch.queryTerms(q), 12);
      }),
    );
  }

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (x) => x.toFixed(2).padStart(8);
console.log(
  `${docs.length} documents indexed; ${runsPerRound} runs × ${rounds} rounds; medians per run / per search`,
);
console.log(`${''.padEnd(22)} run wall ms  run CPU ms  search wall ms  search CPU ms`);
for (const side of sides)
  console.log(
    `${side.name.padEnd(22)} ${fmt(median(side.runs.map((r) => r.wall)) / runsPerRound)}    ${fmt(median(side.runs.map((r) => r.cpu)) / runsPerRound)}    ${fmt(median(side.search.map((r) => r.wall)) / queries.length)}      ${fmt(median(side.search.map((r) => r.cpu)) / queries.length)}`,
  );
await sqlite.close();
await pg.store.close();
await pg.stop();
