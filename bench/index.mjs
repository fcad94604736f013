#!/usr/bin/env node
// Document indexing and search at scale: a generated folder of 10,000 short Markdown documents is
// indexed, refreshed unchanged, refreshed after edits, and searched; then a folder of 200 long documents
// (100–300 KB each, with headings) is indexed as passages, and passages are selected and searched.
// Last, the text's scale: 100 files of 200 KB are indexed from scratch, printing the speed and the
// database's size on disk ÷ the text's size, beside the same figures for a reference build of agent
// (AGENT_BENCH_BASELINE=<its dist folder>, e.g. a copy of dist from before migration 009) when given.
// Usage: npm run build && node bench/index.mjs [documents] [long documents] [200 KB files]
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { documentSource, refreshIndex, searchDocuments, searchPassages } from '../dist/research/documents.js';
import { openStore } from '../dist/store/open.js';

const count = Number(process.argv[2] ?? 10_000);
const longCount = Number(process.argv[3] ?? 200);
const dir = mkdtempSync(join(tmpdir(), 'agent-bench-index-'));
let seed = 42;
const random = () => {
  seed = (seed * 1103515245 + 12345) % 2 ** 31;
  return seed / 2 ** 31;
};
// A 5,000-word synthetic vocabulary drawn with a Zipf-like skew, so posting lists have realistic sizes.
const syllables = 'ba ce di fo gu ka le mi no pu ra se ti vo zu an el in or un'.split(' ');
const vocabulary = Array.from({ length: 5000 }, (_, i) => {
  let w = '';
  for (let n = i + 1; n > 0; n = Math.floor(n / syllables.length)) w += syllables[n % syllables.length];
  return w;
});
const word = () => vocabulary[Math.min(vocabulary.length - 1, Math.floor(vocabulary.length * random() ** 3))];
const sentence = () =>
  `The ${word()} ${word()} rule covers ${word()} and ${word()} for every ${word()} over $${Math.floor(random() * 5000)}.`;

for (let i = 0; i < count; i++) {
  const folder = join(dir, `team-${i % 50}`);
  if (i < 50) mkdirSync(folder);
  const body = Array.from({ length: 12 }, sentence).join(' ');
  writeFileSync(join(folder, `doc-${i}.md`), `# ${word()} ${word()} guide ${i}\n\n${body}\n`);
}

const db = openStore(join(dir, 'bench.db'));
const time = async (f) => {
  const start = process.hrtime.bigint();
  const result = await f();
  return [Number(process.hrtime.bigint() - start) / 1e6, result];
};
const timeSync = (f) => {
  const start = process.hrtime.bigint();
  f();
  return Number(process.hrtime.bigint() - start) / 1e6;
};
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
const latencies = queries.map((q) => timeSync(() => searchDocuments(db, dir, q, 5)));

console.log(`documents            ${stats.added}`);
console.log(`first index          ${first.toFixed(0)} ms`);
console.log(`refresh, unchanged   ${again.toFixed(0)} ms`);
console.log(`refresh, 100 edited  ${edited.toFixed(0)} ms (${editStats.updated} updated)`);
console.log(`query latency        ${percentiles(latencies)} (${queries.length} queries, top 5)`);
db.close();
rmSync(dir, { recursive: true, force: true });

// Long documents, in a database of their own: chapters (##) of sections (###) of paragraphs, 100–300 KB
// each.
if (longCount > 0) {
  const longDir = mkdtempSync(join(tmpdir(), 'agent-bench-long-'));
  const dbDir = mkdtempSync(join(tmpdir(), 'agent-bench-long-db-'));
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
  const longDb = openStore(join(dbDir, 'bench.db'));
  const [longFirst, longStats] = await time(() => refreshIndex(longDb, longDir));
  const [longAgain] = await time(() => refreshIndex(longDb, longDir));
  const passages = longDb.prepare('SELECT count(*) FROM passages').pluck().get();
  // A planner's three queries (the question and two searches) for one long document at a time.
  const sourceLatencies = Array.from({ length: 200 }, (_, i) => {
    const queries = [question(), question(), question()];
    return timeSync(() => documentSource(longDb, longDir, `handbook-${i % longCount}`, queries, 24_000));
  });
  const passageLatencies = Array.from({ length: 200 }, () => {
    const q = question();
    return timeSync(() => searchPassages(longDb, longDir, q, 16));
  });

  console.log(
    `long documents       ${longStats.added} (${(bytes / 2 ** 20).toFixed(0)} MB, ${passages} passages)`,
  );
  console.log(`first index          ${longFirst.toFixed(0)} ms`);
  console.log(`refresh, unchanged   ${longAgain.toFixed(0)} ms`);
  console.log(
    `document source      ${percentiles(sourceLatencies)} (best passages of one document, 24,000 characters)`,
  );
  console.log(
    `passage search       ${percentiles(passageLatencies)} (${passageLatencies.length} queries, top 16 passages)`,
  );
  longDb.close();
  rmSync(longDir, { recursive: true, force: true });
  rmSync(dbDir, { recursive: true, force: true });
}

// Scale: the same generated files indexed by this build and, when given, by the reference build.
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
  const measure = async (dist) => {
    const url = (p) => pathToFileURL(join(resolve(dist), p)).href;
    const { refreshIndex: refresh } = await import(url('research/documents.js'));
    const { openStore: open } = await import(url('store/open.js'));
    const dbDir = mkdtempSync(join(tmpdir(), 'agent-bench-scale-db-'));
    const scaleDb = open(join(dbDir, 'bench.db'));
    const [ms] = await time(() => refresh(scaleDb, scaleDir));
    scaleDb.pragma('wal_checkpoint(TRUNCATE)');
    scaleDb.close();
    const size = statSync(join(dbDir, 'bench.db')).size;
    rmSync(dbDir, { recursive: true, force: true });
    const mb = textBytes / 2 ** 20;
    return `${(mb / (ms / 1000)).toFixed(2)} MB/s (${ms.toFixed(0)} ms), on disk ${(size / textBytes).toFixed(2)} × the text`;
  };
  console.log(
    `scale                ${scaleCount} files of 200 KB (${(textBytes / 2 ** 20).toFixed(0)} MB of text)`,
  );
  console.log(`index, this build    ${await measure(new URL('../dist', import.meta.url).pathname)}`);
  const baseline = process.env.AGENT_BENCH_BASELINE;
  if (baseline) console.log(`index, reference     ${await measure(baseline)}`);
  else console.log('index, 0.1.0         2.25 MB/s, on disk 3.33 × the text (measured before migration 009)');
  rmSync(scaleDir, { recursive: true, force: true });
}
