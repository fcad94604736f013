#!/usr/bin/env node
// PDF text against poppler's pdftotext: the 3-word-shingle F1 of our text (pdftotext as the reference)
// and pages per second for both, over real PDFs given as arguments (files, or folders searched for
// .pdf and .pdf.gz), or else those Debian documentation packages ship (/usr/share/doc), a two-column
// page built with groff, and a long document joined from them with pdfunite (about 2,000 pages, under
// read_url's 10 MB cap). Per document it also counts what structure came out: headings, Markdown
// tables, words still broken at a line end ("-" then a newline), words kept hyphenated that pdftotext
// joins (compounds, or misses: look at them), and lines repeated on 40% of the pages or more (running
// headers and footers left in).
// Ours is timed three times: as it runs in a process that has read PDFs before (this thread plus reading
// workers on spare cores), on this thread alone (workers: 0), and as one `agent read FILE` in a fresh
// process ("fresh": Node's start-up, pdf.js loaded and not yet compiled by V8's optimiser, as a user who
// reads one document waits). Each figure is the best of --runs interleaved runs (3 by default): on a shared
// machine the fastest run is the one least slowed by others. CPU time is the whole process's (workers
// included) for ours, the child's for pdftotext; wall time shows what a user waits.
// Needs pdftotext: apt-get install poppler-utils (groff for the two-column page). Run `npm run build` first.
//
//   node bench/pdf.mjs [--runs n] [file.pdf | folder ...]
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { gunzipSync } from 'node:zlib';

const { readPdf } = await import('../dist/formats/pdf/index.js');

if (spawnSync('pdftotext', ['-v']).error) {
  console.error('pdf bench: pdftotext is missing; install it with: apt-get install poppler-utils');
  process.exit(2);
}
const work = mkdtempSync(join(tmpdir(), 'agent-pdf-bench-'));

function findPdfs(dir, out = [], depth = 0, minBytes = 20_000) {
  let entries = [];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return out;
  }
  for (const e of entries) {
    const path = join(dir, e.name);
    if (e.isDirectory() && depth < 4) findPdfs(path, out, depth + 1, minBytes);
    else if (e.isFile() && /\.pdf(\.gz)?$/i.test(e.name) && statSync(path).size > minBytes) out.push(path);
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
  try {
    writeFileSync(
      path,
      execFileSync('groff', ['-ms', '-Tpdf'], { input: src, stdio: ['pipe', 'pipe', 'ignore'] }),
    );
  } catch {
    // groff-base has no PDF device: the full groff package does.
    console.log('(no two-column page: groff cannot write PDF here; apt-get install groff)');
    return undefined;
  }
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

/** About 2,000 pages joined from the others with pdfunite, as long as the PDFs read_url meets (10 MB at most). */
function longDocument(parts) {
  if (spawnSync('pdfunite', ['-v']).error || !parts.length) return undefined;
  const pagesOf = (f) => Number(/Pages:\s+(\d+)/.exec(execFileSync('pdfinfo', [f]).toString())?.[1] ?? 0);
  const sized = parts.map((f) => ({ f, pages: pagesOf(f), bytes: statSync(f).size }));
  const chosen = [];
  let [pages, bytes] = [0, 0];
  for (let i = 0; pages < 2000 && i < sized.length * 4; i++) {
    const part = sized[i % sized.length];
    if (bytes + part.bytes > 8 * 2 ** 20) continue;
    chosen.push(part.f);
    [pages, bytes] = [pages + part.pages, bytes + part.bytes];
  }
  const path = join(work, 'long.pdf');
  execFileSync('pdfunite', [...chosen, path]);
  return path;
}

const args = process.argv.slice(2);
const runsAt = args.indexOf('--runs');
const RUNS = runsAt >= 0 ? Number(args.splice(runsAt, 2)[1]) : 3;
if (!(RUNS >= 1)) {
  console.error('pdf bench: --runs takes a number of runs, 1 or more.');
  process.exit(2);
}
const given = args.length > 0;
const files = (
  given
    ? args.flatMap((a) => (statSync(a).isDirectory() ? findPdfs(a, [], 0, 0) : [a]))
    : findPdfs('/usr/share/doc')
).map(local);
if (!given) {
  const built = [twoColumn(), longDocument(files.slice())].filter(Boolean);
  files.push(...built);
}
if (!files.length) {
  console.error('pdf bench: no PDFs given or found; install a -doc package that ships PDFs (e.g. bash-doc).');
  process.exit(2);
}

/** pdftotext's text, wall and CPU time (its own, as bash's `times` reports for its children). */
function pdftotext(file) {
  const out = join(work, 'out.txt');
  const t = performance.now();
  const r = spawnSync('bash', ['-c', 'pdftotext -enc UTF-8 "$1" "$2" && times', 'bash', file, out]);
  const wall = performance.now() - t;
  if (r.status !== 0) throw new Error(`pdftotext failed on ${file}: ${r.stderr}`);
  const [user, sys] = [
    ...r.stdout
      .toString()
      .split('\n')[1]
      .matchAll(/(\d+)m([\d.]+)s/g),
  ].map(([, m, sec]) => Number(m) * 60 + Number(sec));
  return { text: readFileSync(out, 'utf8'), wall, cpu: (user + sys) * 1000 };
}

const CLI = new URL('../bin/agent.js', import.meta.url).pathname;
/** One `agent read FILE` in a new process: its wall time (the text itself is checked in-process). */
function fresh(file) {
  const t = performance.now();
  const r = spawnSync(process.execPath, [CLI, 'read', file], { stdio: ['ignore', 'ignore', 'pipe'] });
  if (r.status !== 0) throw new Error(`agent read failed on ${file}: ${r.stderr}`);
  return { wall: performance.now() - t };
}

/** CPU ms of each thread of this process, from /proc (Linux); empty elsewhere. */
function threadCpu() {
  const ms = new Map();
  let tasks = [];
  try {
    tasks = readdirSync('/proc/self/task');
  } catch {
    return ms;
  }
  for (const id of tasks) {
    try {
      const stat = readFileSync(`/proc/self/task/${id}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ms.set(id, (Number(f[11]) + Number(f[12])) * 10); // utime + stime, in 10 ms ticks
    } catch {
      // A thread that ended meanwhile.
    }
  }
  return ms;
}

async function ours(data, options) {
  const c = process.cpuUsage();
  const before = threadCpu();
  const t = performance.now();
  const { pages } = await readPdf(data, options);
  const wall = performance.now() - t;
  const { user, system } = process.cpuUsage(c);
  // The busiest thread's CPU: what the wall time would be with a core for each thread.
  let busiest = 0;
  for (const [id, ms] of threadCpu()) busiest = Math.max(busiest, ms - (before.get(id) ?? 0));
  return { pages, wall, cpu: (user + system) / 1000, busiest };
}

const best = (runs, key) => Math.min(...runs.map((r) => r[key]));

/**
 * pdftotext's text without the lines (numbers aside) that stand on 40% of its pages or more, 3 at least:
 * the running headers and footers it keeps and we drop, which would otherwise count against us.
 */
function withoutRunning(ref) {
  const pages = ref.split('\f');
  const key = (line) => line.trim().replace(/\d+/g, '#');
  const counts = new Map();
  for (const page of pages)
    for (const k of new Set(page.split('\n').map(key))) counts.set(k, (counts.get(k) ?? 0) + 1);
  const need = Math.max(3, pages.length * 0.4);
  return pages
    .map((page) =>
      page
        .split('\n')
        .filter((line) => !line.trim() || (counts.get(key(line)) ?? 0) < need)
        .join('\n'),
    )
    .join('\f');
}

/** What structure our text has, and what it still lacks, next to pdftotext's text of the same file. */
function structure(pages, ref) {
  const text = pages.join('\n');
  const refLower = ref.toLowerCase();
  const refWords = new Set(refLower.match(/\p{L}+/gu) ?? []);
  const hyphenated = [...text.matchAll(/\b(\p{L}+)-(\p{L}+)\b/gu)].filter(
    ([w, a, b]) => refWords.has((a + b).toLowerCase()) && !refLower.includes(w.toLowerCase()),
  ).length;
  const counts = new Map();
  for (const page of pages)
    for (const line of new Set(page.split('\n')))
      if (/\p{L}{3}/u.test(line)) counts.set(line, (counts.get(line) ?? 0) + 1);
  const need = Math.max(3, pages.length * 0.4);
  return {
    headings: (text.match(/^#{1,6} /gm) ?? []).length,
    tables: (text.match(/^\| (?:--- \| )*--- \|$/gm) ?? []).length,
    broken: (text.match(/\p{L}-\n\p{Ll}/gu) ?? []).length,
    hyphenated,
    repeated: [...counts.values()].filter((n) => n >= need).length,
  };
}

// pdf.js loaded, and the reading workers started, before timing, as a long-running process has them.
const largest = files.reduce((a, b) => (statSync(b).size > statSync(a).size ? b : a));
await readPdf(readFileSync(largest));

const [cores, load] = [availableParallelism(), loadavg()[0]];
console.log(`${cores} cores, load average ${load.toFixed(1)}; best of ${RUNS} runs`);
if (load > cores - 1)
  console.log('(the machine is busy: reading workers find no idle core, so wall times understate them)');
console.log(
  'file                              pages    F1  F1 body  pages/s: ours  1 thread  fresh  pdftotext  ratio  fresh   CPU ms/page: ours  busiest thread  pdftotext' +
    '   headings tables broken kept- repeated',
);
const total = { pages: 0, ours: 0, alone: 0, fresh: 0, ref: 0, oursCpu: 0, busiest: 0, refCpu: 0 };
const totals = {};
let f1Sum = 0;
let bodySum = 0;
let counted = 0;
for (const file of files) {
  const data = readFileSync(file);
  const runs = { ours: [], alone: [], fresh: [], ref: [] };
  try {
    await readPdf(data);
  } catch (error) {
    // A scan, an encrypted file, a text layer that cannot be decoded: said, and left out of the figures.
    console.log(`${basename(file).slice(0, 32).padEnd(32)} skipped: ${error.message}`);
    continue;
  }
  counted++;
  for (let i = 0; i < RUNS; i++) {
    runs.ours.push(await ours(data));
    runs.alone.push(await ours(data, { workers: 0 }));
    runs.fresh.push(fresh(file));
    runs.ref.push(pdftotext(file));
  }
  const { pages } = runs.ours[0];
  // Our page markers and heading marks are not words of the document.
  const text = pages.map((p) => p.replace(/^#{1,6} /gm, '').replace(/^\\#/gm, '#')).join('\n');
  const n = pages.length;
  const found = structure(pages, runs.ref[0].text);
  const score = f1(text, runs.ref[0].text);
  const bodyScore = f1(text, withoutRunning(runs.ref[0].text));
  f1Sum += score;
  bodySum += bodyScore;
  for (const k of Object.keys(found)) totals[k] = (totals[k] ?? 0) + found[k];
  const t = {
    ours: best(runs.ours, 'wall'),
    alone: best(runs.alone, 'wall'),
    fresh: best(runs.fresh, 'wall'),
    ref: best(runs.ref, 'wall'),
    oursCpu: best(runs.ours, 'cpu'),
    busiest: best(runs.ours, 'busiest'),
    refCpu: best(runs.ref, 'cpu'),
  };
  total.pages += n;
  for (const k of Object.keys(t)) total[k] += t[k];
  const rate = (ms) => (n / (ms / 1000)).toFixed(0);
  const perPage = (ms) => (ms / n).toFixed(2);
  console.log(
    `${basename(file).slice(0, 32).padEnd(32)} ${String(n).padStart(6)}  ${score.toFixed(3)}  ${bodyScore.toFixed(3)}` +
      `  ${rate(t.ours).padStart(12)} ${rate(t.alone).padStart(9)} ${rate(t.fresh).padStart(6)} ${rate(t.ref).padStart(10)} ${(t.ref / t.ours).toFixed(2).padStart(6)}× ${(t.ref / t.fresh).toFixed(2).padStart(5)}×` +
      `  ${perPage(t.oursCpu).padStart(17)} ${perPage(t.busiest).padStart(15)} ${perPage(t.refCpu).padStart(10)}` +
      `   ${String(found.headings).padStart(8)} ${String(found.tables).padStart(6)} ${String(found.broken).padStart(6)}` +
      ` ${String(found.hyphenated).padStart(5)} ${String(found.repeated).padStart(8)}`,
  );
}
const rate = (ms) => (total.pages / (ms / 1000)).toFixed(0);
const perPage = (ms) => (ms / total.pages).toFixed(2);
console.log(
  `all: ${total.pages} pages; pages/s: ours ${rate(total.ours)}, on one thread ${rate(total.alone)}, as one \`agent read\` each ${rate(total.fresh)}, pdftotext ${rate(total.ref)} ` +
    `(${(total.ref / total.ours).toFixed(2)}× its speed; ${(total.ref / total.alone).toFixed(2)}× on one thread; ${(total.ref / total.fresh).toFixed(2)}× in a fresh process)`,
);
console.log(
  `mean F1 ${(f1Sum / counted).toFixed(3)} (${(bodySum / counted).toFixed(3)} against pdftotext's text without its running lines) over ${counted} documents; headings ${totals.headings}, tables ${totals.tables}, ` +
    `words broken at a line end ${totals.broken}, kept hyphenated (pdftotext joins) ${totals.hyphenated}, repeated lines ${totals.repeated}`,
);
console.log(
  `CPU ms/page: ours ${perPage(total.oursCpu)} (busiest thread ${perPage(total.busiest)}), pdftotext ${perPage(total.refCpu)}` +
    (total.busiest
      ? `; with a core per thread: ${(total.refCpu / total.busiest).toFixed(2)}× pdftotext's speed`
      : ''),
);
