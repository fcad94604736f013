#!/usr/bin/env node
// The grounding check measured: false alarms and misses on the case table (test/fixtures/grounding/
// cases.json: right and wrong sentences against a source, per family), and the time to check a 3,000-word
// report over 20 sources of 20,000 characters, with the evidence finder on the same input (together they
// are what a run without --verify adds): see bench/support/checks.mjs for how the time is taken.
//
// Beside ours, the accuracy of the implementation before the rework (src/research/grounding.ts at commit
// OLD), and the time of both checks as of support/checks.mjs's REFERENCE, each taken from git into a
// temporary folder; skipped when git has no such commit.
//
// Usage: npm run build && node bench/grounding.mjs [--show]   (--show lists every case that fails)
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { transform } from 'esbuild';
import { findEvidence } from '../dist/research/checks/evidence/index.js';
import { checkGrounding } from '../dist/research/checks/grounding/index.js';
import { digest, OURS, reference as referenceChecks, timeChecks } from './support/checks.mjs';

const root = new URL('..', import.meta.url).pathname;
const OLD = '5407a59';

/** The old checkGrounding, or undefined when git cannot show it. */
async function oldCheck() {
  try {
    const dir = mkdtempSync(join(tmpdir(), 'grounding-old-'));
    for (const file of ['grounding', 'citations', 'text']) {
      const source = execFileSync('git', ['show', `${OLD}:src/research/${file}.ts`], {
        cwd: root,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      writeFileSync(join(dir, `${file}.js`), (await transform(source, { loader: 'ts', format: 'esm' })).code);
    }
    return (await import(pathToFileURL(join(dir, 'grounding.js')).href)).checkGrounding;
  } catch {
    return undefined;
  }
}
const old = await oldCheck();
const reference = await referenceChecks();
const show = process.argv.includes('--show');
const families = JSON.parse(readFileSync(join(root, 'test/fixtures/grounding/cases.json'), 'utf8'));

let right = 0;
let wrong = 0;
let falseAlarms = 0;
let misses = 0;
let oldAlarms = 0;
let oldMisses = 0;
console.log('family                                 right  false alarms  wrong  misses');
for (const f of families) {
  const sources = [{ n: 1, text: f.source }];
  const flagged = (s) => checkGrounding(s, sources).unsupported.length > 0;
  const alarms = f.right.filter(flagged);
  const missed = f.wrong.filter((s) => !flagged(s));
  if (old) {
    const oldFlagged = (s) => old(s, sources).unsupported.length > 0;
    oldAlarms += f.right.filter(oldFlagged).length;
    oldMisses += f.wrong.filter((s) => !oldFlagged(s)).length;
  }
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
// Every case's full result, ours beside the reference's: they must be the same, byte for byte.
if (reference) {
  const { checkGrounding: theirs } = await import(pathToFileURL(reference.grounding).href);
  const { findEvidence: theirEvidence } = await import(pathToFileURL(reference.evidence).href);
  const all = (check, evidence) =>
    digest(
      families.map((f) => {
        const cited = [
          { n: 1, kind: 'web', title: f.family, location: 'https://example.com/', text: f.source },
        ];
        return [...f.right, ...f.wrong].map((s) => [check(s, cited), evidence(s, cited)]);
      }),
    );
  const [a, b] = [all(checkGrounding, findEvidence), all(theirs, theirEvidence)];
  console.log(`\ncase results: ${a} (${reference.name}: ${b}) — ${a === b ? 'the same' : 'DIFFERENT'}`);
}
const pct = (a, b) => `${((100 * a) / b).toFixed(1)}%`;
console.log(
  `\nfalse alarms: ${falseAlarms}/${right} right sentences (${pct(falseAlarms, right)}, target ≤ 2%)` +
    `\nmisses:       ${misses}/${wrong} wrong sentences (${pct(misses, wrong)}, target ≤ 10%)`,
);
if (old)
  console.log(
    `before (${OLD}): false alarms ${oldAlarms}/${right} (${pct(oldAlarms, right)}), misses ${oldMisses}/${wrong} (${pct(oldMisses, wrong)})`,
  );

// The families written after the quantity reader was rebuilt (test/fixtures/grounding/families.json):
// conversions, units it does not know, identifiers, fractions, ranges, approximations, table headers;
// and the held-out families (held-out*.json), written by a hand that had not seen the reader.
for (const [name, file] of [
  ['later families', 'families.json'],
  ['held-out families', 'held-out.json'],
  ['held-out families, second set', 'held-out-2.json'],
  ['held-out families, third set', 'held-out-3.json'],
  ['held-out families, fourth set (measured only)', 'held-out-4.json'],
  ['held-out, fifth set (issue 40, measured only)', 'held-out-5.json'],
  ['held-out, sixth set (issue 40, measured only)', 'held-out-6.json'],
]) {
  const families = JSON.parse(readFileSync(join(root, 'test/fixtures/grounding', file), 'utf8'));
  let [r, w, fa, mi, nc] = [0, 0, 0, 0, 0];
  console.log(`\n${name.padEnd(38)} right  false alarms  wrong  misses  not checked`);
  for (const f of families) {
    const sources = [{ n: 1, text: f.source }];
    const alarms = f.right.filter((s) => checkGrounding(s, sources).unsupported.length > 0);
    const results = f.wrong.map((s) => checkGrounding(s, sources));
    const missed = results.filter((g) => g.unsupported.length === 0 && g.notChecked.length === 0).length;
    const abstained = results.filter((g) => g.unsupported.length === 0 && g.notChecked.length > 0).length;
    [r, w, fa, mi, nc] = [
      r + f.right.length,
      w + f.wrong.length,
      fa + alarms.length,
      mi + missed,
      nc + abstained,
    ];
    console.log(
      `${f.family.slice(0, 38).padEnd(38)} ${String(f.right.length).padStart(5)} ${String(alarms.length).padStart(13)} ${String(f.wrong.length).padStart(6)} ${String(missed).padStart(7)} ${String(abstained).padStart(12)}`,
    );
    if (show) for (const s of alarms) console.log(`    false alarm: ${s}`);
  }
  console.log(
    `${name}: false alarms ${fa}/${r} (${pct(fa, r)}), misses ${mi}/${w} (${pct(mi, w)}), not checked ${nc}/${w}`,
  );
}

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
const { lines, figures } = timeChecks([OURS, ...(reference ? [reference] : [])], answer.join('\n'), sources);
console.log(
  `\nspeed: ${words}-word answer (${answer.length} cited sentences) over 20 sources of 20,000 characters`,
);
for (const line of lines) console.log(line);
const ours = figures.ours;
console.log(
  `targets (what a run waits for once its answer has ended; the sources are read while it streams): grounding warm ≤ 10 ms (${ours.groundingAfterWarm}), grounding + evidence warm ≤ 20 ms (${ours.afterWarm}); the checks on their own (reports --show): grounding ${ours.groundingWarm.toFixed(1)}, both ${ours.bothWarm.toFixed(1)}`,
);
