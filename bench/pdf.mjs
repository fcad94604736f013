#!/usr/bin/env node
// PDF text against poppler's pdftotext: the 3-word-shingle F1 of our text (pdftotext as the reference)
// and pages per second for both, over real PDFs given as arguments, or else those Debian documentation
// packages ship (/usr/share/doc, .pdf and .pdf.gz) plus a two-column page built with groff when present.
// Needs pdftotext: apt-get install poppler-utils (groff for the two-column page). Run `npm run build` first.
//
//   node bench/pdf.mjs [file.pdf ...]
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { gunzipSync } from 'node:zlib';

const { readPdf } = await import('../dist/formats/pdf.js');

if (spawnSync('pdftotext', ['-v']).error) {
  console.error('pdf bench: pdftotext is missing; install it with: apt-get install poppler-utils');
  process.exit(2);
}
const work = mkdtempSync(join(tmpdir(), 'agent-pdf-bench-'));

function findPdfs(dir, out = [], depth = 0) {
  let entries = [];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return out;
  }
  for (const e of entries) {
    const path = join(dir, e.name);
    if (e.isDirectory() && depth < 4) findPdfs(path, out, depth + 1);
    else if (e.isFile() && /\.pdf(\.gz)?$/i.test(e.name) && statSync(path).size > 20_000) out.push(path);
  }
  return out;
}

function local(path) {
  if (!path.endsWith('.gz')) return path;
  const to = join(work, basename(path, '.gz'));
  writeFileSync(to, gunzipSync(readFileSync(path)));
  return to;
}

/** A two-column page set by groff's ms macros, from the paragraphs of its own documentation. */
function twoColumn() {
  if (spawnSync('groff', ['-v']).error) return undefined;
  const words =
    'the reader must see each column whole before the next one starts and every sentence in its place'.split(
      ' ',
    );
  const para = (n) => Array.from({ length: 60 }, (_, i) => words[(i * 7 + n) % words.length]).join(' ');
  const src = `.TL\nA two-column test paper\n.AU\nBench Author\n.AB\n${para(1)}.\n.AE\n.2C\n${Array.from({ length: 14 }, (_, i) => `.NH\nSection ${i + 1}\n.PP\nParagraph ${i + 1} opens: ${para(i)}.`).join('\n')}\n`;
  const path = join(work, 'two-column.pdf');
  writeFileSync(path, execFileSync('groff', ['-ms', '-Tpdf'], { input: src }));
  return path;
}

const words = (text) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
function shingles(text) {
  const w = words(text);
  const bag = new Map();
  for (let i = 0; i + 2 < w.length; i++) {
    const k = `${w[i]} ${w[i + 1]} ${w[i + 2]}`;
    bag.set(k, (bag.get(k) ?? 0) + 1);
  }
  return bag;
}
function f1(ours, ref) {
  const [a, b] = [shingles(ours), shingles(ref)];
  let common = 0;
  let na = 0;
  let nb = 0;
  for (const n of a.values()) na += n;
  for (const n of b.values()) nb += n;
  for (const [k, n] of a) common += Math.min(n, b.get(k) ?? 0);
  if (!na || !nb) return 0;
  const [p, r] = [common / na, common / nb];
  return p + r ? (2 * p * r) / (p + r) : 0;
}

const files = process.argv.length > 2 ? process.argv.slice(2) : findPdfs('/usr/share/doc').map(local);
const built = process.argv.length > 2 ? undefined : twoColumn();
if (built) files.push(built);
if (!files.length) {
  console.error('pdf bench: no PDFs given or found; install a -doc package that ships PDFs (e.g. bash-doc).');
  process.exit(2);
}

// pdf.js is loaded once before timing, as a long-running process would have it.
await readPdf(readFileSync(files[0]));
console.log('file                              pages    F1   ours p/s  pdftotext p/s  ratio');
let [ourTime, refTime, pageTotal] = [0, 0, 0];
for (const file of files) {
  const data = readFileSync(file);
  let t = performance.now();
  const { pages } = await readPdf(data);
  const ours = performance.now() - t;
  t = performance.now();
  const ref = execFileSync('pdftotext', ['-enc', 'UTF-8', file, '-'], { maxBuffer: 1 << 28 }).toString();
  const theirs = performance.now() - t;
  // Our page markers and heading marks are not words of the document.
  const text = pages.map((p) => p.replace(/^#{1,6} /gm, '').replace(/^\\#/gm, '#')).join('\n');
  const n = pages.length;
  [ourTime, refTime, pageTotal] = [ourTime + ours, refTime + theirs, pageTotal + n];
  const rate = (ms) => (n / (ms / 1000)).toFixed(0).padStart(8);
  console.log(
    `${basename(file).slice(0, 32).padEnd(32)} ${String(n).padStart(6)}  ${f1(text, ref).toFixed(3)} ${rate(ours)}  ${rate(theirs)}       ${(theirs / ours).toFixed(2)}×`,
  );
}
console.log(
  `all: ${pageTotal} pages, ours ${(pageTotal / (ourTime / 1000)).toFixed(0)} pages/s, pdftotext ${(pageTotal / (refTime / 1000)).toFixed(0)} pages/s (${(refTime / ourTime).toFixed(2)}× its speed)`,
);
