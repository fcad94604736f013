#!/usr/bin/env node
// Retrieval quality: does the right passage come back for a question worded like the document
// ("lexical") and for one that says the same thing in other words ("paraphrased")? For each retrieval
// mode (bm25, semantic, hybrid) the built CLI indexes the corpus and answers every question with
// `agent research --extractive --json --retrieval MODE --embeddings openai-compatible:wink` (a batch),
// embeddings coming from the loopback word-vector server in bench/support/wink-embedder.mjs. Each
// answer's `retrieval.passages` (best first) is searched for the question's right passage: the one
// passage of its document holding its quote. Printed: the share of each half with the right passage
// first (top 1) and among the first five (top 5), and the wall time of indexing and of the questions.
//
// The corpus (bench/retrieval-corpus/, or --corpus DIR): DIR/documents/ is the content folder and
// DIR/questions.json a list of {id, kind: "lexical" | "paraphrased", question, document (its path under
// documents/), quote (exact text of the right passage)}. Quotes are checked first: each must lie inside
// one passage, as this build cuts them, and nowhere else in the corpus.
//
// Usage: npm run build && node bench/retrieval-quality.mjs [--cli bin/agent.js] [--corpus DIR]
//   [--modes bm25,semantic,hybrid] [--misses] [--check] [--in-process | --passages]
//   --check       only check the corpus: quotes, and the content words a paraphrased question shares
//                 with its passage (there should be none)
//   --in-process  a reference ranked in this process instead of by the CLI, for a CLI whose --json has
//                 no `retrieval` yet: bm25 is this build's searchPassages (what extractive answers are
//                 built from), semantic the wink vectors' cosine, hybrid the two fused by reciprocal rank
//   --passages    this build's own retriever (BM25, vectors and their fusion, as research runs them)
//                 called in this process with the loopback embedder: each question's right passage is
//                 matched by its text, so top 1 and top 5 are passage-level, not document-level
//   --misses      list the questions whose right passage is not in the top 5
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { agentEnv } from './support/loopback.mjs';
import { makeEmbedder, startWinkEmbedder } from './support/wink-embedder.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const flag = (name) => process.argv.includes(name);
const cli = resolve(arg('--cli', join(ROOT, 'bin', 'agent.js')));
const corpus = resolve(arg('--corpus', join(ROOT, 'bench', 'retrieval-corpus')));
const docsDir = join(corpus, 'documents');
const inProcess = flag('--in-process');
const passageLevel = flag('--passages');
const modes = arg('--modes', 'bm25,semantic,hybrid').split(',');
const KINDS = ['lexical', 'paraphrased'];

function die(message, code = 1) {
  console.error(message);
  process.exit(code);
}
const unknown = modes.find((m) => !['bm25', 'semantic', 'hybrid'].includes(m));
if (unknown) die(`Unknown mode ${unknown}: --modes takes bm25, semantic and hybrid, comma-separated.`, 2);
const startedAll = performance.now();

let dist;
try {
  dist = {
    documents: await import(join(ROOT, 'dist', 'research', 'documents.js')),
    text: await import(join(ROOT, 'dist', 'research', 'text.js')),
  };
} catch {
  die('No build in dist/: run npm run build first.');
}

/** Lower case, whitespace collapsed, Markdown emphasis and code marks dropped: how quotes are compared. */
const norm = (s) =>
  s
    .toLowerCase()
    .replace(/[`*_]/g, '')
    .replace(/[‘’]/g, "'")
    .replace(/[“”]/g, '"')
    .replace(/\s+/g, ' ')
    .trim();
/** A document as the index names it: its path under the content folder without the extension. */
const slugOf = (path) => path.replace(/\\/g, '/').replace(/\.[^./]+$/, '');

// The corpus as this build reads and cuts it.
const questions = JSON.parse(readFileSync(join(corpus, 'questions.json'), 'utf8'));
const files = [];
const walk = (dir) => {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path);
    else if (dist.documents.EXTENSIONS.some((e) => name.endsWith(e))) files.push(path);
  }
};
walk(docsDir);
const passages = []; // {slug, ordinal, headingPath, title, text, norm}
for (const path of files) {
  const { title, text } = await dist.documents.readDocumentFile(path);
  const slug = slugOf(relative(docsDir, path));
  for (const p of dist.documents.splitPassages(text))
    passages.push({
      slug,
      ordinal: p.ordinal,
      headingPath: p.headingPath,
      title,
      text: p.text,
      norm: norm(p.text),
    });
}

const problems = [];
const targets = questions.map((q) => {
  if (!KINDS.includes(q.kind)) problems.push(`${q.id}: kind must be lexical or paraphrased, not ${q.kind}`);
  const quote = norm(q.quote);
  const holding = passages.filter((p) => p.norm.includes(quote));
  const own = holding.filter((p) => p.slug === slugOf(q.document));
  if (own.length !== 1 || holding.length !== 1)
    problems.push(
      `${q.id}: the quote is in ${own.length} passage(s) of ${q.document} and ${holding.length - own.length} elsewhere (it must be in exactly one passage of its document and nowhere else)`,
    );
  return own[0];
});
if (problems.length) die(`The corpus is not usable:\n  ${problems.join('\n  ')}`);
console.log(
  `Corpus: ${files.length} documents, ${passages.length} passages (as this build cuts them), ${questions.length} questions (${KINDS.map((k) => `${questions.filter((q) => q.kind === k).length} ${k}`).join(', ')})`,
);

/**
 * Content words two texts share, compared as stems, a stem that starts another of at least 4 letters
 * counting as shared (porter stems "commuting" and "commute" alike, this build's stem does not).
 */
function sharedWords(question, passage) {
  const stems = (text) => new Set(dist.documents.queryTerms(text).map((w) => dist.text.stem(w)));
  const mine = stems(question);
  const theirs = [...stems(`${passage.title ?? ''} ${passage.headingPath} ${passage.text}`)];
  return [...mine].filter((s) =>
    theirs.some(
      (t) => t === s || (Math.min(s.length, t.length) >= 4 && (t.startsWith(s) || s.startsWith(t))),
    ),
  );
}

if (flag('--check')) {
  let overlapping = 0;
  questions.forEach((q, i) => {
    const shared = q.kind === 'paraphrased' ? sharedWords(q.question, targets[i]) : [];
    if (shared.length) overlapping++;
    console.log(
      `${q.id.padEnd(8)} ${q.kind.padEnd(11)} ${targets[i].slug}#${targets[i].ordinal}${shared.length ? `  shares: ${shared.join(', ')}` : ''}`,
    );
  });
  console.log(`${overlapping} paraphrased question(s) share content words with their passage.`);
  process.exit(overlapping ? 1 : 0);
}

/** Whether a passage of `retrieval.passages` is question i's right passage; `how` says what decided. */
function matches(entry, i) {
  const target = targets[i];
  // `document` may be the slug ("man/xz"), the path ("man/xz.txt") or an absolute path.
  const doc = typeof entry.document === 'string' ? entry.document.replace(/\\/g, '/') : '';
  const sameDoc = [doc, slugOf(doc)].some((d) => d === target.slug || d.endsWith(`/${target.slug}`));
  if (typeof entry.text === 'string') return norm(entry.text).includes(norm(questions[i].quote));
  const ordinal = entry.passage ?? entry.ordinal;
  if (Number.isInteger(ordinal)) return sameDoc && ordinal === target.ordinal;
  return sameDoc; // the document only: a weaker test, said in the table's note
}

/** Runs the CLI with `input` on stdin; resolves to {code, stdout, stderr, ms}. */
function run(args, env, input = '') {
  const started = performance.now();
  return new Promise((done) => {
    const child = execFile(
      process.execPath,
      [cli, ...args],
      { env, maxBuffer: 2 ** 28 },
      (error, stdout, stderr) =>
        done({ code: error ? (error.code ?? 1) : 0, stdout, stderr, ms: performance.now() - started }),
    );
    child.stdin.end(input);
  });
}

/** A measurement that cannot go on: said in one line once the temporary folders are removed. */
const fail = (message) => {
  throw Object.assign(new Error(message), { bench: true });
};

/** One mode through the CLI: {ranks (index of the right passage or -1, per question), indexMs, askMs}. */
async function measureCli(mode, wink) {
  const home = mkdtempSync(join(tmpdir(), 'agent-bench-retrieval-'));
  try {
    const env = agentEnv(new URL(wink.url).origin, home, {
      AGENT_EMBEDDINGS_BASE_URL: wink.url,
      NO_COLOR: '1',
    });
    const flags = [
      'research',
      '--extractive',
      '--json',
      '--content',
      docsDir,
      '--retrieval',
      mode,
      '--embeddings',
      'openai-compatible:wink',
    ];
    // Indexing (and embedding every passage) happens in the first run: a question outside the set.
    const first = await run([...flags, 'index warm-up: which documents are there?'], env);
    if (first.code !== 0)
      fail(
        `${mode}: the CLI failed (exit ${first.code}): ${first.stderr.trim().split('\n')[0]}${/unknown option/.test(first.stderr) ? '\nThis CLI has no --retrieval/--embeddings yet (issue 31). A reference without them: node bench/retrieval-quality.mjs --in-process' : ''}`,
      );
    const lines = questions.map((q) => JSON.stringify({ question: q.question })).join('\n');
    const batch = await run(
      [...flags.filter((f) => f !== '--json'), '--batch', '-', '--parallel', '2'],
      env,
      `${lines}\n`,
    );
    const results = batch.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    const ranks = questions.map(() => -1);
    let withRetrieval = 0;
    const failed = [];
    for (const r of results) {
      const i = r.line - 1;
      if (r.error) failed.push(`${questions[i]?.id}: ${r.error}`);
      if (!r.retrieval) continue;
      withRetrieval++;
      // A run that fell back to another mode (embeddings down) measures that mode, not this one.
      if (r.retrieval.mode !== mode)
        fail(
          `${mode}: the CLI used ${r.retrieval.mode} retrieval instead${r.retrieval.fallback ? `: ${r.retrieval.fallback}` : ''} (embeddings ${JSON.stringify(r.retrieval.embeddings)})`,
        );
      ranks[i] = r.retrieval.passages.findIndex((p) => matches(p, i)); // best first
      passageShape ??= r.retrieval.passages[0];
    }
    if (results.length < questions.length)
      fail(
        `${mode}: the batch printed ${results.length} of ${questions.length} answers (exit ${batch.code}): ${batch.stderr.trim().split('\n').at(-1)}`,
      );
    if (failed.length === questions.length) fail(`${mode}: every question failed, the first: ${failed[0]}`);
    if (failed.length)
      console.error(`${mode}: ${failed.length} question(s) failed (counted as misses): ${failed[0]}`);
    if (withRetrieval === 0)
      fail(
        `${mode}: the CLI's --json has no "retrieval" (issue 31: "retrieval": {"mode", "embeddings", "passages": [{"document", "ordinal" or "text", "bm25Rank", "vectorRank", "score"}]}). A reference without it: node bench/retrieval-quality.mjs --in-process`,
      );
    return { ranks, indexMs: first.ms, askMs: batch.ms };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}
let passageShape;

/** Fused by reciprocal rank (k = 60), the usual constant; both lists cut at `depth`. */
function fuse(lists, depth = 50) {
  const score = new Map();
  for (const list of lists)
    for (const [rank, id] of list.slice(0, depth).entries())
      score.set(id, (score.get(id) ?? 0) + 1 / (60 + rank + 1));
  return [...score.entries()].sort((a, b) => b[1] - a[1]).map(([id]) => id);
}

/**
 * A reference measured in this process, for a CLI whose --json has no `retrieval` yet: bm25 is this
 * build's searchPassages (what extractive answers are built from); semantic ranks every passage by the
 * cosine of its wink vector (heading path and text) with the question's; hybrid fuses the two by
 * reciprocal rank. Not the CLI's retrieval: what a plain implementation gets from the same embedder.
 */
async function measureInProcess(mode) {
  const { openStore } = await import(join(ROOT, 'dist', 'store', 'open.js'));
  const started = performance.now();
  const db = await openStore(':memory:');
  await dist.documents.refreshIndex(db, docsDir);
  if (mode !== 'bm25' && !passageVectors) {
    try {
      embedder = makeEmbedder();
    } catch (error) {
      die(error.message);
    }
    passageVectors = passages.map((p) => embedder.embed(`${p.headingPath}\n${p.text}`).vector);
  }
  const indexMs = performance.now() - started;
  const asked = performance.now();
  const id = new Map(passages.map((p, i) => [`${p.slug}\0${p.norm}`, i]));
  const ranks = [];
  for (const [i, q] of questions.entries()) {
    const hits = await dist.documents.searchPassages(db, docsDir, q.question, 50);
    const bm25 = hits.map((h) => id.get(`${h.slug}\0${norm(h.text)}`)).filter((j) => j !== undefined);
    let ranked = bm25;
    if (mode !== 'bm25') {
      const v = embedder.embed(q.question).vector;
      const cosine = passageVectors.map((p) => p.reduce((sum, x, d) => sum + x * v[d], 0));
      const semantic = passages.map((_, j) => j).sort((a, b) => cosine[b] - cosine[a]);
      ranked = mode === 'semantic' ? semantic : fuse([bm25, semantic]);
    }
    ranks.push(ranked.slice(0, 16).findIndex((j) => matches({ text: passages[j].text }, i)));
  }
  return { ranks, indexMs, askMs: performance.now() - asked };
}
let embedder;
let passageVectors;

/**
 * This build's Retriever, as a research run drives it, over an in-memory index, each question's passages
 * (best first) searched for the right one by its text.
 */
async function measurePassages(mode, wink) {
  const { openStore } = await import(join(ROOT, 'dist', 'store', 'open.js'));
  const { Retriever } = await import(join(ROOT, 'dist', 'research', 'retrieval', 'retriever.js'));
  const { retrievalSetup } = await import(join(ROOT, 'dist', 'research', 'retrieval', 'settings.js'));
  const started = performance.now();
  const store = await openStore(':memory:');
  await dist.documents.refreshIndex(store, docsDir);
  const env = { AGENT_EMBEDDINGS_BASE_URL: wink.url, OPENAI_API_KEY: 'bench' };
  const setup = await retrievalSetup(
    { retrieval: mode, ...(mode === 'bm25' ? {} : { embeddings: 'openai-compatible:wink' }) },
    env,
  );
  const notices = [];
  const retriever = new Retriever(setup, {
    store,
    root: docsDir,
    runId: `bench-${mode}`,
    concurrency: 4,
    emit: (e) => e.type === 'notice' && notices.push(e.message),
  });
  await retriever.prepare('index warm-up: which documents are there?');
  if (notices.length) fail(`${mode}: ${notices[0]}`);
  const indexMs = performance.now() - started;
  const asked = performance.now();
  const ranks = [];
  for (const [i, q] of questions.entries()) {
    const hits = await retriever.passages(q.question, 16);
    ranks.push(hits.findIndex((h) => matches({ text: h.text }, i)));
  }
  await store.close?.();
  return { ranks, indexMs, askMs: performance.now() - asked };
}

const pct = (n, d) => (d ? `${((100 * n) / d).toFixed(0)}%`.padStart(5) : '    –');
const wall = (ms) => `${(ms / 1000).toFixed(1)} s`;
const rows = [];
const missed = [];
const wink =
  inProcess && !passageLevel ? undefined : await startWinkEmbedder().catch((error) => die(error.message));
try {
  for (const mode of modes) {
    const textsBefore = wink?.requests.texts ?? 0;
    const { ranks, indexMs, askMs } = passageLevel
      ? await measurePassages(mode, wink)
      : inProcess
        ? await measureInProcess(mode)
        : await measureCli(mode, wink);
    const embedded = wink ? String(wink.requests.texts - textsBefore) : '–';
    const cells = KINDS.flatMap((kind) => {
      const idx = questions.flatMap((q, i) => (q.kind === kind ? [i] : []));
      return [
        pct(idx.filter((i) => ranks[i] === 0).length, idx.length),
        pct(idx.filter((i) => ranks[i] >= 0 && ranks[i] < 5).length, idx.length),
      ];
    });
    rows.push(
      `| ${(passageLevel ? `${mode} (passages)` : inProcess ? `${mode} (in process)` : mode).padEnd(21)} | ${cells.join(' | ')} | ${wall(indexMs).padStart(7)} | ${wall(askMs).padStart(8)} | ${embedded.padStart(5)} |`,
    );
    questions.forEach((q, i) => {
      if (ranks[i] < 0 || ranks[i] >= 5)
        missed.push(`${mode.padEnd(8)} ${q.id.padEnd(8)} ${q.kind.padEnd(11)} ${q.question}`);
    });
  }
} catch (error) {
  if (!error.bench) throw error;
  console.error(error.message);
  process.exitCode = 1;
} finally {
  await wink?.close();
}
if (process.exitCode) process.exit();

console.log(`
| retrieval             | lexical top 1 | lexical top 5 | paraphrased top 1 | paraphrased top 5 | index (first run) | questions | texts embedded |
| ---                   | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
${rows.join('\n')}

Wall time: ${wall(performance.now() - startedAll)} in all.`);
if (passageShape && typeof passageShape.text !== 'string' && !Number.isInteger(passageShape.ordinal))
  console.log(
    '\nNote: retrieval.passages carry neither "text" nor "ordinal": a passage counted as right when its document is the right one (too generous).',
  );
if (flag('--misses')) console.log(`\nNot in the top 5:\n${missed.join('\n')}`);
