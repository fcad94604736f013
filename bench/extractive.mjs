#!/usr/bin/env node
// How often the no-key (extractive) answer carries the whole fact: over the documents in bench/extractive/
// (policies, manuals with option tables, FAQs, and PDFs built here from bench/extractive/pdf/*.txt), each
// question's fact strings must all appear in the answer's first bullet ("first") or in any bullet ("any").
// Text is compared in lower case with whitespace collapsed and Markdown code/bold markers removed.
//
// "before" is src/research/extractive.ts (and text.ts) as of the commit before this benchmark existed,
// compiled from git here, so both run in the same process over the same index.
//
// Usage: npm run build && node bench/extractive.mjs [--before <git rev>] [--misses]
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, transform } from 'esbuild';
import { refreshIndex } from '../dist/research/documents/index.js';
import { extractiveAnswer } from '../dist/research/extractive/index.js';
import { openStore } from '../dist/store/open.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const HERE = join(ROOT, 'bench', 'extractive');
const arg = (name) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const BEFORE = arg('--before') ?? '63e9298';
const showMisses = process.argv.includes('--misses');
const work = mkdtempSync(join(tmpdir(), 'agent-bench-extractive-'));

/** A TypeScript module from the repository as an importable ES module in `work`. */
async function compile(source, file, rewrite = (s) => s) {
  const { code } = await transform(source, { loader: 'ts', format: 'esm' });
  const out = join(work, file);
  writeFileSync(out, rewrite(code));
  return import(pathToFileURL(out).href);
}

// The corpus: Markdown as written, PDFs drawn from their text (a "---" line starts a new page).
const content = join(work, 'content');
execFileSync('mkdir', ['-p', content]);
for (const f of readdirSync(join(HERE, 'docs'))) copyFileSync(join(HERE, 'docs', f), join(content, f));
const pdfModule = await build({
  entryPoints: [join(ROOT, 'test', 'support', 'make-pdf.ts')],
  bundle: true,
  format: 'esm',
  platform: 'node',
  write: false,
});
writeFileSync(join(work, 'make-pdf.mjs'), pdfModule.outputFiles[0].text);
const { makePdf } = await import(pathToFileURL(join(work, 'make-pdf.mjs')).href);
for (const f of readdirSync(join(HERE, 'pdf'))) {
  const text = readFileSync(join(HERE, 'pdf', f), 'utf8').trimEnd();
  const pages = text.split(/\n---\n/).map((page) => page.split('\n'));
  writeFileSync(join(content, f.replace(/\.txt$/, '.pdf')), makePdf({ pages }));
}

const db = await openStore(':memory:');
const stats = await refreshIndex(db, content);
if (stats.skipped.length) throw new Error(`unreadable: ${JSON.stringify(stats.skipped)}`);

// Today's answerer and the one before, side by side.
const answerers = { after: extractiveAnswer };
try {
  const show = (file) => execFileSync('git', ['-C', ROOT, 'show', `${BEFORE}:${file}`], { encoding: 'utf8' });
  const dist = (name) => pathToFileURL(join(ROOT, 'dist', 'research', name)).href;
  await compile(show('src/research/text.ts'), 'text-before.mjs');
  const before = await compile(show('src/research/extractive.ts'), 'extractive-before.mjs', (code) =>
    code
      .replace(/(["'])\.\/text\.js\1/, `'${pathToFileURL(join(work, 'text-before.mjs')).href}'`)
      .replace(/(["'])\.\/documents\.js\1/, `'${dist('documents.js')}'`),
  );
  answerers.before = before.extractiveAnswer;
} catch (error) {
  console.error(`(no "before": git show ${BEFORE} failed: ${error.message.split('\n')[0]})`);
}

const questions = JSON.parse(readFileSync(join(HERE, 'questions.json'), 'utf8'));
const norm = (s) => s.toLowerCase().replace(/[`*]/g, '').replace(/\s+/g, ' ');
const bullets = (answer) =>
  answer
    .split('\n')
    .filter((l) => l.startsWith('- '))
    .map(norm);

console.log(`${questions.length} questions over ${readdirSync(content).length} documents\n`);
console.log('answerer   first bullet     any bullet   ms/question');
for (const [name, answer] of Object.entries(answerers).reverse()) {
  let first = 0;
  let any = 0;
  const misses = [];
  const started = performance.now();
  for (const { q, facts } of questions) {
    // An answerer from before the store became asynchronous cannot read today's index.
    const answered = await Promise.resolve()
      .then(() => answer(db, content, q))
      .catch((error) => ({ answer: '', error }));
    if (answered.error) {
      console.log(`${name.padEnd(10)} (cannot run on this build's store: ${answered.error.message})`);
      break;
    }
    const lines = bullets(answered.answer);
    const has = (line) => facts.every((f) => line.includes(norm(f)));
    if (lines[0] && has(lines[0])) first++;
    else misses.push({ q, first: lines[0] ?? '(no answer)' });
    if (has(lines.join(' \n '))) any++;
  }
  const ms = (performance.now() - started) / questions.length;
  const pct = (n) => `${((100 * n) / questions.length).toFixed(0).padStart(3)}% (${n})`.padEnd(14);
  console.log(`${name.padEnd(10)} ${pct(first)}   ${pct(any)}   ${ms.toFixed(1)}`);
  if (showMisses) for (const m of misses) console.log(`   ✗ ${m.q}\n     ${m.first.slice(0, 200)}`);
}
