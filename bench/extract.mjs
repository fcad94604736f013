#!/usr/bin/env node
// Article-extraction quality of read_url's HTML → text, scored with the Scrapinghub
// article-extraction-benchmark's own metric: \w+ tokens, 4-token shingles as multisets, per-page
// TP/FP/FN, precision and recall averaged over pages, F1 from those means. Ground truth is cut to its
// first 8,000 characters, as read_url returns at most that much.
//
// Usage: npm run build && node bench/extract.mjs ../shared/corpora/scrapinghub-article-extraction-benchmark [--worst 10]
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { extractHtml } from '../dist/tools/extract/html-to-text.js';
import { MAX_TEXT_CHARS } from '../dist/tools/read-url.js';

const dir = process.argv[2];
if (!dir) {
  console.error(
    'usage: node bench/extract.mjs <path to scrapinghub-article-extraction-benchmark> [--worst N]',
  );
  process.exit(2);
}
const worstIndex = process.argv.indexOf('--worst');
const showWorst = worstIndex > 0 ? Number(process.argv[worstIndex + 1] ?? 10) : 0;

const truth = JSON.parse(readFileSync(join(dir, 'ground-truth.json'), 'utf8'));
const pages = readdirSync(join(dir, 'html'))
  .filter((f) => f.endsWith('.html.gz'))
  .map((f) => ({
    id: f.replace('.html.gz', ''),
    html: gunzipSync(readFileSync(join(dir, 'html', f))).toString('utf8'),
  }));

// Python's \w is Unicode-aware; JavaScript's is ASCII-only even with /u, so spell it out.
const tokens = (text) => text.match(/[\p{L}\p{N}\p{M}_]+/gu) ?? [];
function shingles(text) {
  const t = tokens(text);
  const counts = new Map();
  const n = Math.min(4, t.length);
  for (let i = 0; i + n <= t.length && n > 0; i++) {
    const key = t.slice(i, i + n).join(' ');
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

function score(predicted, expected) {
  const p = shingles(predicted);
  const e = shingles(expected);
  let tp = 0;
  let fp = 0;
  let fn = 0;
  for (const [k, c] of p) {
    const m = Math.min(c, e.get(k) ?? 0);
    tp += m;
    fp += c - m;
  }
  for (const [k, c] of e) fn += c - Math.min(c, p.get(k) ?? 0);
  const total = tp + fp + fn;
  return total === 0 ? { tp: 0, fp: 0, fn: 0 } : { tp: tp / total, fp: fp / total, fn: fn / total };
}

const start = process.hrtime.bigint();
const results = [];
for (const page of pages) {
  const { text } = extractHtml(page.html);
  results.push({
    id: page.id,
    text: text.slice(0, MAX_TEXT_CHARS),
    expected: truth[page.id].articleBody.slice(0, 8000),
  });
}
const seconds = Number(process.hrtime.bigint() - start) / 1e9;

const scored = results.map((r) => ({ ...r, ...score(r.text, r.expected) }));
const withP = scored.filter((s) => s.tp + s.fp > 0);
const withR = scored.filter((s) => s.tp + s.fn > 0);
const precision = withP.reduce((a, s) => a + s.tp / (s.tp + s.fp), 0) / withP.length;
const recall = withR.reduce((a, s) => a + s.tp / (s.tp + s.fn), 0) / withR.length;
const f1 = (2 * precision * recall) / (precision + recall);

console.log(`pages        ${pages.length}`);
console.log(`precision    ${precision.toFixed(3)}`);
console.log(`recall       ${recall.toFixed(3)}`);
console.log(`F1           ${f1.toFixed(3)}   (Readability.js 0.928, Trafilatura 0.957, all page text 0.685)`);
console.log(`speed        ${(pages.length / seconds).toFixed(1)} pages/s`);

if (showWorst) {
  const f = (s) => {
    const p = s.tp + s.fp ? s.tp / (s.tp + s.fp) : 0;
    const r = s.tp + s.fn ? s.tp / (s.tp + s.fn) : 0;
    return { p, r, f: p + r ? (2 * p * r) / (p + r) : 0 };
  };
  for (const s of scored
    .map((s) => ({ ...s, ...f(s) }))
    .sort((a, b) => a.f - b.f)
    .slice(0, showWorst)) {
    console.log(
      `${s.id.slice(0, 12)}  P ${s.p.toFixed(2)}  R ${s.r.toFixed(2)}  got ${s.text.length} chars, want ${s.expected.length}`,
    );
  }
}
