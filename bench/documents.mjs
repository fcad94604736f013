#!/usr/bin/env node
// Local documents (HTML, DOCX, Markdown, text) as `agent read` and research read them, against pandoc on
// the same files: word-shingle F1 of the text, and per document its headings, links, tables and
// footnotes. pandoc keeps every part of a file (navigation bars too) and drops nothing, so its plain text
// is the reference for "read whole"; a figure well under 1 means text lost or added.
//
// Scoring, as bench/extract.mjs: \w+ tokens, 4-token shingles as multisets, F1 per document, then the
// mean. Markdown markup is not \w and costs nothing; link targets and footnote labels are taken out
// before scoring (pandoc's plain text has neither). pandoc's counts come from its JSON syntax tree; its
// links exclude in-page ones (`#…`), which agent writes as text.
//
// Usage: npm run build && node bench/documents.mjs <folder> [--pandoc <path>] [--max N]
//   e.g. Debian's manuals: apt-get download base-passwd postgresql-doc-15 git-doc python3.11-doc
//   debian-reference-en && for f in *.deb; do dpkg-deb -x $f x; done, then a folder of their pages.
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { extname, join, relative } from 'node:path';
import { readDocumentFile } from '../dist/research/documents/read.js';
import { f1, tokens } from './support/shingles.mjs';

const args = process.argv.slice(2);
const dir = args[0];
if (!dir || dir.startsWith('--')) {
  console.error('usage: node bench/documents.mjs <folder> [--pandoc <path>] [--max N]');
  process.exit(2);
}
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i > 0 ? args[i + 1] : fallback;
};
const pandoc = option('--pandoc', 'pandoc');
const max = Number(option('--max', '200'));
const KINDS = new Set(['.html', '.htm', '.docx', '.md', '.markdown', '.txt']);

function walk(folder, found = []) {
  for (const name of readdirSync(folder).sort()) {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) walk(path, found);
    else if (KINDS.has(extname(name).toLowerCase())) found.push(path);
    if (found.length >= max) break;
  }
  return found;
}

/** Markdown as plain words: link targets, autolinks' brackets and footnote labels out. */
const plain = (md) =>
  md
    .replace(/\]\((?:[^()\s]|\([^()\s]*\))*\)/g, ']')
    .replace(/<((?:https?|mailto):[^>\s]+)>/g, '$1')
    .replace(/\[\^[^\]\s]+\]:?/g, '');

function ourCounts(md) {
  let fenced = false;
  const counts = { headings: 0, links: 0, tables: 0, notes: 0 };
  for (const line of md.split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    if (fenced) continue;
    if (/^#{1,6} /.test(line)) counts.headings++;
    if (/^\|( ---? \|)+$/.test(line.replace(/-+/g, '---'))) counts.tables++;
    if (/^\[\^[^\]]+\]: /.test(line)) counts.notes++;
    counts.links += (line.match(/\]\((?:[^()\s]|\([^()\s]*\))*\)|<(?:https?|mailto):[^>\s]+>/g) ?? []).length;
  }
  return counts;
}

function pandocCounts(ast) {
  const counts = { headings: 0, links: 0, tables: 0, notes: 0 };
  const visit = (node) => {
    if (Array.isArray(node)) node.forEach(visit);
    else if (node && typeof node === 'object') {
      if (node.t === 'Header') counts.headings++;
      else if (node.t === 'Table') counts.tables++;
      else if (node.t === 'Note') counts.notes++;
      else if (node.t === 'Link' && !String(node.c?.[2]?.[0] ?? '').startsWith('#')) counts.links++;
      if (node.c) visit(node.c);
    }
  };
  visit(ast.blocks);
  return counts;
}

const files = walk(dir);
if (files.length === 0) {
  console.error(`no .html, .docx, .md or .txt files under ${dir}`);
  process.exit(2);
}
const rows = [];
let oursMs = 0;
let pandocMs = 0;
for (const path of files) {
  let ours;
  let t = performance.now();
  try {
    ours = await readDocumentFile(path);
  } catch (error) {
    rows.push({ path, error: String(error.message ?? error) });
    continue;
  }
  oursMs += performance.now() - t;
  t = performance.now();
  const from = extname(path).toLowerCase() === '.txt' ? ['-f', 'markdown'] : [];
  let theirs;
  let ast;
  try {
    theirs = execFileSync(pandoc, [...from, '-t', 'plain', '--wrap=none', path], {
      maxBuffer: 1 << 28,
    }).toString();
    pandocMs += performance.now() - t;
    ast = JSON.parse(execFileSync(pandoc, [...from, '-t', 'json', path], { maxBuffer: 1 << 28 }).toString());
  } catch (error) {
    rows.push({ path, error: `pandoc: ${String(error.message ?? error).split('\n')[0]}` });
    continue;
  }
  rows.push({
    path,
    title: ours.title ?? '',
    f1: f1(plain(ours.text), theirs),
    words: [tokens(plain(ours.text)).length, tokens(theirs).length],
    ours: ourCounts(ours.text),
    theirs: pandocCounts(ast),
  });
}

const pad = (s, n) => String(s).padStart(n);
console.log(
  `${files.length} documents under ${dir}; pandoc ${execFileSync(pandoc, ['--version']).toString().split('\n')[0]}\n`,
);
console.log(
  `${'document'.padEnd(44)}${pad('F1', 6)}${pad('words', 13)}${pad('headings', 10)}${pad('links', 11)}${pad('tables', 8)}${pad('notes', 8)}  title`,
);
const pair = (a, b, n) => pad(`${a}/${b}`, n);
for (const r of rows) {
  const name = relative(dir, r.path).slice(-43).padEnd(44);
  if (r.error) {
    console.log(`${name}  ${r.error}`);
    continue;
  }
  console.log(
    `${name}${pad(r.f1.toFixed(3), 6)}${pair(...r.words, 13)}${pair(r.ours.headings, r.theirs.headings, 10)}${pair(r.ours.links, r.theirs.links, 11)}${pair(r.ours.tables, r.theirs.tables, 8)}${pair(r.ours.notes, r.theirs.notes, 8)}  ${r.title.slice(0, 50)}`,
  );
}
const scored = rows.filter((r) => !r.error);
const mean = (f) => scored.reduce((a, r) => a + f(r), 0) / scored.length;
const sum = (f) => scored.reduce((a, r) => a + f(r), 0);
console.log(
  `\nmean F1 ${mean((r) => r.f1).toFixed(3)} over ${scored.length} documents (agent/pandoc): headings ${sum((r) => r.ours.headings)}/${sum((r) => r.theirs.headings)}, links ${sum((r) => r.ours.links)}/${sum((r) => r.theirs.links)}, tables ${sum((r) => r.ours.tables)}/${sum((r) => r.theirs.tables)}, notes ${sum((r) => r.ours.notes)}/${sum((r) => r.theirs.notes)}`,
);
console.log(
  `reading time: agent ${oursMs.toFixed(0)} ms, pandoc (plain text only) ${pandocMs.toFixed(0)} ms`,
);
if (rows.length > scored.length)
  console.log(`${rows.length - scored.length} documents not scored (see above)`);
