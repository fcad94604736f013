#!/usr/bin/env node
// Document indexing and search at scale: a generated folder of 10,000 Markdown documents is indexed,
// refreshed unchanged, refreshed after edits, and searched.
// Usage: npm run build && node bench/index.mjs [documents]
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { refreshIndex, searchDocuments } from '../dist/research/documents.js';
import { openStore } from '../dist/store/open.js';

const count = Number(process.argv[2] ?? 10_000);
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
const time = (f) => {
  const start = process.hrtime.bigint();
  const result = f();
  return [Number(process.hrtime.bigint() - start) / 1e6, result];
};
const [first, stats] = time(() => refreshIndex(db, dir));
const [again] = time(() => refreshIndex(db, dir));
for (let i = 0; i < 100; i++)
  writeFileSync(join(dir, `team-${i % 50}`, `doc-${i}.md`), `# edited ${i}\n\n${sentence()}\n`);
const [edited, editStats] = time(() => refreshIndex(db, dir));

const queries = Array.from(
  { length: 200 },
  () => `How does the ${word()} ${word()} policy handle ${word()}?`,
);
const latencies = queries.map((q) => time(() => searchDocuments(db, dir, q, 5))[0]).sort((a, b) => a - b);
const pct = (p) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))].toFixed(2);

console.log(`documents            ${stats.added}`);
console.log(`first index          ${first.toFixed(0)} ms`);
console.log(`refresh, unchanged   ${again.toFixed(0)} ms`);
console.log(`refresh, 100 edited  ${edited.toFixed(0)} ms (${editStats.updated} updated)`);
console.log(
  `query latency        median ${pct(0.5)} ms, p95 ${pct(0.95)} ms (${queries.length} queries, top 5)`,
);
db.close();
rmSync(dir, { recursive: true, force: true });
