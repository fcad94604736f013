#!/usr/bin/env node
// Document indexing and search at scale: a generated folder of 10,000 short Markdown documents is
// indexed, refreshed unchanged, refreshed after edits, and searched; then a folder of 200 long documents
// (100–300 KB each, with headings) is indexed as passages, and passages are selected and searched.
// Then the text's scale: 100 files of 200 KB are indexed from scratch, printing the speed (wall clock, CPU
// with worker threads, and the main thread's CPU: on an idle machine with two cores or more, the wall
// clock follows it) and the database's size on disk ÷ the text's size. Last, the walk of a
// folder of 20,000 small files, alone and as a refresh that finds nothing changed.
// With AGENT_BENCH_BASELINE=<the dist folder of a reference build> (a copy of dist from before migration
// 011, say, beside its node_modules and db/), the long documents, the scale and the walk are measured for
// it too, in the same run and interleaved, so a busy machine slows both alike.
// Usage: npm run build && node bench/index.mjs [documents] [long documents] [200 KB files] [small files]
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { refreshIndex, searchDocuments } from '../dist/research/documents/index.js';
import { openStore } from '../dist/store/open.js';
import { syntheticText } from './support/synthetic-text.mjs';

const count = Number(process.argv[2] ?? 10_000);
const longCount = Number(process.argv[3] ?? 200);
const dir = mkdtempSync(join(tmpdir(), 'agent-bench-index-'));
const { random, word, sentence } = syntheticText(42);

for (let i = 0; i < count; i++) {
  const folder = join(dir, `team-${i % 50}`);
  if (i < 50) mkdirSync(folder);
  const body = Array.from({ length: 12 }, sentence).join(' ');
  writeFileSync(join(folder, `doc-${i}.md`), `# ${word()} ${word()} guide ${i}\n\n${body}\n`);
}

const db = await openStore(join(dir, 'bench.db'));
const time = async (f) => {
  const start = process.hrtime.bigint();
  const result = await f();
  return [Number(process.hrtime.bigint() - start) / 1e6, result];
};
/** Milliseconds a search takes (the store is asynchronous; a reference build's may not be). */
const timeOne = async (f) => (await time(f))[0];
/** The SQLite file under a store (a reference build's openStore gave the file itself). */
const fileOf = (store) => store.db ?? store;
const percentiles = (latencies) => {
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (p) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))].toFixed(2);
  return `median ${at(0.5)} ms, p95 ${at(0.95)} ms`;
};
const question = () => `How does the ${word()} ${word()} policy handle ${word()}?`;

const [first, stats] = await time(() => refreshIndex(db, dir));
const [again] = await time(() => refreshIndex(db, dir));
for (let i = 0; i < 100; i++)
  writeFileSync(join(dir, `team-${i % 50}`, `doc-${i}.md`), `# edited ${i}\n\n${sentence()}\n`);
const [edited, editStats] = await time(() => refreshIndex(db, dir));

const queries = Array.from({ length: 200 }, question);
const latencies = [];
for (const q of queries) latencies.push(await timeOne(() => searchDocuments(db, dir, q, 5)));

console.log(`documents            ${stats.added}`);
console.log(`first index          ${first.toFixed(0)} ms`);
console.log(`refresh, unchanged   ${again.toFixed(0)} ms`);
console.log(`refresh, 100 edited  ${edited.toFixed(0)} ms (${editStats.updated} updated)`);
console.log(`query latency        ${percentiles(latencies)} (${queries.length} queries, top 5)`);
await db.close();
rmSync(dir, { recursive: true, force: true });

const thisBuild = new URL('../dist', import.meta.url).pathname;
const baseline = process.env.AGENT_BENCH_BASELINE;
const builds = [['this build', thisBuild], ...(baseline ? [['reference', baseline]] : [])];
/** The modules a build's figures need, loaded from its dist folder. */
const load = async (dist) => {
  const url = (p) => pathToFileURL(join(resolve(dist), p)).href;
  return {
    ...(await import(url('research/documents/index.js'))),
    ...(await import(url('store/open.js'))),
    ...(await import(url('research/documents/walk.js'))),
  };
};
/** This thread's CPU time in ms, from Linux's /proc (0 elsewhere): the critical path of indexing. */
const mainThreadCpu = () => {
  try {
    const fields = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
};
const cpuTime = async (f) => {
  const cpu = process.cpuUsage();
  const main = mainThreadCpu();
  const [ms, result] = await time(f);
  const used = process.cpuUsage(cpu);
  return [ms, (used.user + used.system) / 1000, result, mainThreadCpu() - main];
};
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const label = (name) => name.padEnd(21);

// Long documents, each build in a database of its own: chapters (##) of sections (###) of paragraphs,
// 100–300 KB each; every build answers the same queries.
if (longCount > 0) {
  const longDir = mkdtempSync(join(tmpdir(), 'agent-bench-long-'));
  let bytes = 0;
  for (let i = 0; i < longCount; i++) {
    const target = 100_000 + Math.floor(random() * 200_000);
    const parts = [`# Handbook ${i}: ${word()} ${word()}\n`];
    let size = 0;
    for (let chapter = 1; size < target; chapter++) {
      parts.push(`## Chapter ${chapter}: ${word()} ${word()}\n`);
      for (let section = 1; section <= 6 && size < target; section++) {
        parts.push(`### ${word()} ${word()} ${section}\n`);
        for (let p = 0; p < 1 + Math.floor(random() * 4); p++) {
          const paragraph = Array.from({ length: 3 + Math.floor(random() * 8) }, sentence).join(' ');
          parts.push(`${paragraph}\n`);
          size += paragraph.length;
        }
      }
    }
    const text = parts.join('\n');
    bytes += text.length;
    writeFileSync(join(longDir, `handbook-${i}.md`), text);
  }
  // A planner's three queries (the question and two searches) for one long document at a time.
  const sourceQueries = Array.from({ length: 200 }, () => [question(), question(), question()]);
  const passageQueries = Array.from({ length: 200 }, question);
  const opened = [];
  for (const [name, dist] of builds) {
    const m = await load(dist);
    const dbDir = mkdtempSync(join(tmpdir(), 'agent-bench-long-db-'));
    const db = await m.openStore(join(dbDir, 'bench.db'));
    const [first, stats] = await time(() => m.refreshIndex(db, longDir));
    const [again] = await time(() => m.refreshIndex(db, longDir));
    const passages = fileOf(db).prepare('SELECT count(*) FROM passage_spans').pluck().get();
    console.log(
      `long documents       ${stats.added} (${(bytes / 2 ** 20).toFixed(0)} MB, ${passages} passages), ${name}`,
    );
    console.log(`first index          ${first.toFixed(0)} ms`);
    console.log(`refresh, unchanged   ${again.toFixed(0)} ms`);
    opened.push({ name, m, db, dbDir, source: [], passage: [] });
  }
  // Interleaved, query by query, so that the machine's load falls on every build alike.
  for (let i = 0; i < 200; i++)
    for (const o of opened) {
      const slug = `handbook-${i % longCount}`;
      o.source.push(await timeOne(() => o.m.documentSource(o.db, longDir, slug, sourceQueries[i], 24_000)));
      o.passage.push(await timeOne(() => o.m.searchPassages(o.db, longDir, passageQueries[i], 16)));
    }
  for (const o of opened) {
    console.log(
      `document source      ${percentiles(o.source)} (best passages of one document, 24,000 characters), ${o.name}`,
    );
    console.log(
      `passage search       ${percentiles(o.passage)} (${o.passage.length} queries, top 16 passages), ${o.name}`,
    );
    await o.db.close();
    rmSync(o.dbDir, { recursive: true, force: true });
  }
  rmSync(longDir, { recursive: true, force: true });
}

// Scale: the same generated files indexed from scratch by each build, twice, interleaved; the faster run.
const scaleCount = Number(process.argv[4] ?? 100);
if (scaleCount > 0) {
  const scaleDir = mkdtempSync(join(tmpdir(), 'agent-bench-scale-'));
  let textBytes = 0;
  for (let i = 0; i < scaleCount; i++) {
    const parts = [`# Handbook ${i}\n`];
    let size = 0;
    for (let chapter = 1; size < 200_000; chapter++) {
      parts.push(`## Chapter ${chapter}: ${word()}\n`);
      for (let section = 1; section <= 6 && size < 200_000; section++) {
        const paragraph = Array.from({ length: 6 }, sentence).join(' ');
        parts.push(`### ${word()} ${section}\n`, `${paragraph}\n`);
        size += paragraph.length;
      }
    }
    const text = parts.join('\n');
    textBytes += Buffer.byteLength(text);
    writeFileSync(join(scaleDir, `handbook-${i}.md`), text);
  }
  const measure = async (m) => {
    const dbDir = mkdtempSync(join(tmpdir(), 'agent-bench-scale-db-'));
    const db = await m.openStore(join(dbDir, 'bench.db'));
    const [ms, cpu, , main] = await cpuTime(() => m.refreshIndex(db, scaleDir));
    fileOf(db).pragma('wal_checkpoint(TRUNCATE)');
    await db.close();
    const size = statSync(join(dbDir, 'bench.db')).size;
    rmSync(dbDir, { recursive: true, force: true });
    return { ms, cpu, main, size };
  };
  const runs = new Map(builds.map(([name]) => [name, []]));
  const modules = await Promise.all(builds.map(([, dist]) => load(dist)));
  for (let round = 0; round < 2; round++)
    for (const [i, [name]] of builds.entries()) runs.get(name).push(await measure(modules[i]));
  const mb = textBytes / 2 ** 20;
  console.log(`scale                ${scaleCount} files of 200 KB (${mb.toFixed(0)} MB of text)`);
  for (const [name, results] of runs) {
    const best = results.reduce((a, b) => (a.ms <= b.ms ? a : b));
    console.log(
      `${label(`index, ${name}`)}${(mb / (best.ms / 1000)).toFixed(2)} MB/s (${best.ms.toFixed(0)} ms; CPU ${(best.cpu / 1000).toFixed(2)} s, main thread ${(best.main / 1000).toFixed(2)} s), on disk ${(best.size / textBytes).toFixed(2)} × the text`,
    );
  }
  console.log(
    'index, before 011    12.55 MB/s, on disk 1.76 × the text (main before migration 011, quiet machine)',
  );
  console.log('index, 0.0.2         2.25 MB/s, on disk 3.33 × the text (measured before migration 009)');
  rmSync(scaleDir, { recursive: true, force: true });
}

// The walk: a folder of 20,000 small files in 100 × 7 folders (a tenth with an image beside them), indexed
// once by each build; then the walk alone and a refresh that finds nothing changed, five times each,
// interleaved: the median.
const smallCount = Number(process.argv[5] ?? 20_000);
if (smallCount > 0) {
  const smallDir = mkdtempSync(join(tmpdir(), 'agent-bench-walk-'));
  for (let i = 0; i < smallCount; i++) {
    const folder = join(smallDir, `team-${i % 100}`, `part-${i % 7}`);
    if (i < 700) mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, `doc-${i}.md`), `# Doc ${i}\n\n${sentence()}\n`);
    if (i % 10 === 0) writeFileSync(join(folder, `image-${i}.png`), 'PNG');
  }
  const opened = [];
  for (const [name, dist] of builds) {
    const m = await load(dist);
    const dbDir = mkdtempSync(join(tmpdir(), 'agent-bench-walk-db-'));
    const db = await m.openStore(join(dbDir, 'bench.db'));
    await m.refreshIndex(db, smallDir);
    opened.push({ name, m, db, dbDir, walk: [], refresh: [] });
  }
  for (let round = 0; round < 5; round++)
    for (const o of opened) {
      o.walk.push(await cpuTime(() => o.m.listContentFiles(smallDir)));
      o.refresh.push(await cpuTime(() => o.m.refreshIndex(o.db, smallDir)));
    }
  for (const o of opened) {
    const figures = (runs) =>
      `${median(runs.map((r) => r[0])).toFixed(0)} ms (CPU ${median(runs.map((r) => r[1])).toFixed(0)} ms)`;
    console.log(`${label(`walk, ${o.name}`)}${figures(o.walk)}, ${smallCount} files`);
    console.log(`${label(`  unchanged refresh`)}${figures(o.refresh)}`);
    await o.db.close();
    rmSync(o.dbDir, { recursive: true, force: true });
  }
  rmSync(smallDir, { recursive: true, force: true });
}
