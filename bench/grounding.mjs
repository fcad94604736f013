#!/usr/bin/env node
// The grounding check measured: false alarms and misses on the case table (test/fixtures/grounding/
// cases.json: right and wrong sentences against a source, per family), and the time to check a 3,000-word
// report over 20 sources of 20,000 characters (wall and CPU time, median of several runs).
//
// Usage: npm run build && node bench/grounding.mjs [--show]   (--show lists every case that fails)
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkGrounding } from '../dist/research/grounding/index.js';

const root = new URL('..', import.meta.url).pathname;
const show = process.argv.includes('--show');
const families = JSON.parse(readFileSync(join(root, 'test/fixtures/grounding/cases.json'), 'utf8'));

let right = 0;
let wrong = 0;
let falseAlarms = 0;
let misses = 0;
console.log('family                                 right  false alarms  wrong  misses');
for (const f of families) {
  const sources = [{ n: 1, text: f.source }];
  const flagged = (s) => checkGrounding(s, sources).unsupported.length > 0;
  const alarms = f.right.filter(flagged);
  const missed = f.wrong.filter((s) => !flagged(s));
  right += f.right.length;
  wrong += f.wrong.length;
  falseAlarms += alarms.length;
  misses += missed.length;
  console.log(
    `${f.family.padEnd(38)} ${String(f.right.length).padStart(5)} ${String(alarms.length).padStart(13)} ${String(f.wrong.length).padStart(6)} ${String(missed.length).padStart(7)}`,
  );
  if (show) {
    for (const s of alarms)
      console.log(
        `    false alarm: ${s}  →  ${JSON.stringify(checkGrounding(s, sources).unsupported[0].missing)}`,
      );
    for (const s of missed) console.log(`    missed:      ${s}`);
  }
}
const pct = (a, b) => `${((100 * a) / b).toFixed(1)}%`;
console.log(
  `\nfalse alarms: ${falseAlarms}/${right} right sentences (${pct(falseAlarms, right)}, target ≤ 2%)` +
    `\nmisses:       ${misses}/${wrong} wrong sentences (${pct(misses, wrong)}, target ≤ 10%)`,
);

// Speed: 20 sources of 20,000 characters built from the bundled documents (real prose with figures), and
// a 3,000-word answer of cited sentences restating their figures (some wrong).
const dir = join(root, 'content');
const docs = readdirSync(dir, { recursive: true })
  .filter((f) => f.endsWith('.md'))
  .map((f) => readFileSync(join(dir, f), 'utf8'));
const corpus = docs.join('\n\n');
const sources = Array.from({ length: 20 }, (_, i) => {
  let text = '';
  for (let k = i; text.length < 20_000; k++)
    text += `${docs[k % docs.length]}\n\nUpdated ${(k % 28) + 1} March 2026.\n\n`;
  return { n: i + 1, text: text.slice(0, 20_000) };
});
const sentences = corpus
  .split(/(?<=[.!?])\s+/)
  .filter((s) => /\d/.test(s) && s.length < 300 && !s.includes('|'));
const answer = [];
let words = 0;
for (let i = 0; words < 3000; i++) {
  const s = sentences[i % sentences.length].replace(/\n/g, ' ');
  const line = i % 7 === 0 ? s.replace(/\d/, (d) => String((Number(d) + 1) % 10)) : s;
  answer.push(`${line.replace(/[.!?]?$/, '')} [${(i % 20) + 1}].`);
  words += line.split(/\s+/).length;
}
const text = answer.join((i) => (i % 5 === 4 ? '\n\n' : ' '));
const runs = [];
for (let i = 0; i < 15; i++) {
  const cpu = process.cpuUsage();
  const start = performance.now();
  checkGrounding(answer.join('\n'), sources);
  const wall = performance.now() - start;
  const used = process.cpuUsage(cpu);
  runs.push({ wall, cpu: (used.user + used.system) / 1000 });
}
const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(
  `\nspeed: ${words}-word answer (${answer.length} cited sentences) over 20 sources of 20,000 characters:` +
    ` median ${median(runs.map((r) => r.wall)).toFixed(1)} ms wall, ${median(runs.map((r) => r.cpu)).toFixed(1)} ms CPU` +
    ` (target ≤ 10 ms; best ${Math.min(...runs.map((r) => r.wall)).toFixed(1)} ms)`,
);
void text;
