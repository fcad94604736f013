#!/usr/bin/env node
// Article-extraction quality of read_url's HTML → Markdown, scored with the Scrapinghub
// article-extraction-benchmark's own metric: \w+ tokens, 4-token shingles as multisets, per-page
// TP/FP/FN, precision and recall averaged over pages, F1 from those means. Ground truth is cut to its
// first 8,000 characters, as read_url returns at most that much. The ground truth is plain text:
// Markdown markers (#, -, |, fences) are not \w tokens and cost nothing, but the numbers of ordered
// list items are, and cost a little on pages with numbered lists. Link targets are \w tokens too: the
// text is cut where read_url cuts it (links count against its 8,000 characters, as the model sees them),
// then the targets are taken out before scoring, since the ground truth has none.
//
// Each extractor runs twice on the same bytes: the whole page, and the page cut at 512 KB (the byte cap
// read_url applies, so what a user gets). Mozilla Readability (jsdom) runs beside ours in the same run.
//
// Usage: npm run build && node bench/extract.mjs ../shared/corpora/scrapinghub-article-extraction-benchmark
//          [--worst N] [--no-readability]
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { extractHtml } from '../dist/formats/html/html-to-text.js';
import { MAX_TEXT_CHARS } from '../dist/tools/read-url.js';
import { overlap } from './support/shingles.mjs';

const CAP_BYTES = 512 * 1024;

const dir = process.argv[2];
if (!dir || dir.startsWith('--')) {
  console.error(
    'usage: node bench/extract.mjs <path to scrapinghub-article-extraction-benchmark> [--worst N] [--no-readability]',
  );
  process.exit(2);
}
const worstIndex = process.argv.indexOf('--worst');
const showWorst = worstIndex > 0 ? Number(process.argv[worstIndex + 1] ?? 10) : 0;
const withReadability = !process.argv.includes('--no-readability');

const truth = JSON.parse(readFileSync(join(dir, 'ground-truth.json'), 'utf8'));
const decoder = new TextDecoder('utf-8');
const pages = readdirSync(join(dir, 'html'))
  .filter((f) => f.endsWith('.html.gz'))
  .sort()
  .map((f) => {
    const bytes = gunzipSync(readFileSync(join(dir, 'html', f)));
    const id = f.replace('.html.gz', '');
    return {
      id,
      url: truth[id].url,
      full: decoder.decode(bytes),
      // Decoded the way read_url decodes a cut body: a split character becomes U+FFFD.
      capped: decoder.decode(bytes.subarray(0, CAP_BYTES)),
      expected: truth[id].articleBody.slice(0, 8000),
    };
  });

function score(predicted, expected) {
  const { tp, fp, fn } = overlap(predicted, expected);
  const total = tp + fp + fn;
  return total === 0 ? { tp: 0, fp: 0, fn: 0 } : { tp: tp / total, fp: fp / total, fn: fn / total };
}

function evaluate(name, cut, extract) {
  const start = process.hrtime.bigint();
  const outputs = pages.map((page) =>
    extract(page[cut], page.url)
      .slice(0, MAX_TEXT_CHARS)
      .replace(/\]\((?:[^()\s]|\([^()\s]*\))*\)/g, ']'),
  );
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const scored = pages.map((page, i) => ({
    id: page.id,
    text: outputs[i],
    expected: page.expected,
    ...score(outputs[i], page.expected),
  }));
  const withP = scored.filter((s) => s.tp + s.fp > 0);
  const withR = scored.filter((s) => s.tp + s.fn > 0);
  const precision = withP.reduce((a, s) => a + s.tp / (s.tp + s.fp), 0) / withP.length;
  const recall = withR.reduce((a, s) => a + s.tp / (s.tp + s.fn), 0) / withR.length;
  const f1 = (2 * precision * recall) / (precision + recall);
  return { name, cut, precision, recall, f1, speed: pages.length / seconds, scored };
}

const ours = (html, url) => extractHtml(html, url).text;

let readability;
const retried = [];
if (withReadability) {
  // Dev dependencies, loaded only for the comparison.
  const [{ Readability }, { JSDOM, VirtualConsole }] = await Promise.all([
    import('@mozilla/readability'),
    import('jsdom'),
  ]);
  const parse = (html, url) => {
    const dom = new JSDOM(html, { url, virtualConsole: new VirtualConsole() });
    try {
      return new Readability(dom.window.document).parse()?.textContent ?? '';
    } finally {
      dom.window.close();
    }
  };
  readability = (html, url) => {
    try {
      return parse(html, url);
    } catch (error) {
      // jsdom's CSS parser throws on a few pages' stylesheets (SCSS left in a <style>). Readability drops
      // <style> elements before it reads anything, so read the page again without them.
      retried.push(String(error?.message ?? error).split('\n')[0]);
      return parse(html.replace(/<style[\s\S]*?<\/style>/gi, ''), url);
    }
  };
}

const runs = [evaluate('agent', 'full', ours), evaluate('agent', 'capped', ours)];
if (readability)
  runs.push(evaluate('Readability', 'full', readability), evaluate('Readability', 'capped', readability));

const over = pages.filter((p) => Buffer.byteLength(p.full) > CAP_BYTES).length;
console.log(
  `${pages.length} pages (${over} over 512 KB); text cut at ${MAX_TEXT_CHARS} characters as read_url does\n`,
);
const row = (cells) => cells.map((c, i) => (i < 2 ? String(c).padEnd(13) : String(c).padStart(10))).join('');
console.log(row(['extractor', 'page', 'precision', 'recall', 'F1', 'pages/s']));
for (const r of runs) {
  console.log(
    row([
      r.name,
      r.cut === 'full' ? 'full' : '512 KB',
      r.precision.toFixed(3),
      r.recall.toFixed(3),
      r.f1.toFixed(3),
      r.speed.toFixed(1),
    ]),
  );
}
if (retried.length)
  console.log(
    `\njsdom threw on ${retried.length} page loads (${retried[0]}); Readability read them without <style>`,
  );
console.log('\npublished on this benchmark: Readability.js 0.928, Trafilatura 0.957, all page text 0.685');

if (showWorst) {
  const f = (s) => {
    const p = s.tp + s.fp ? s.tp / (s.tp + s.fp) : 0;
    const r = s.tp + s.fn ? s.tp / (s.tp + s.fn) : 0;
    return { p, r, f: p + r ? (2 * p * r) / (p + r) : 0 };
  };
  console.log(`\nworst ${showWorst} pages for agent, full page:`);
  for (const s of runs[0].scored
    .map((s) => ({ ...s, ...f(s) }))
    .sort((a, b) => a.f - b.f)
    .slice(0, showWorst)) {
    console.log(
      `${s.id.slice(0, 12)}  P ${s.p.toFixed(2)}  R ${s.r.toFixed(2)}  got ${s.text.length} chars, want ${s.expected.length}`,
    );
  }
}
