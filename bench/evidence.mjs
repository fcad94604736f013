#!/usr/bin/env node
// What finding the evidence and checking grounding add to a run without --verify: a 3,000-word report
// over 20 sources of 20,000 characters (the case), both checks timed together, ours beside the
// reference commit's (bench/support/checks.mjs). Target: both together ≤ 20 ms warm. Deterministic text
// (a seeded generator), so runs compare.
// Usage: npm run build && node bench/evidence.mjs [fresh processes per implementation, default 5]
import { findEvidence } from '../dist/research/checks/evidence/index.js';
import { OURS, reference as referenceChecks, timeChecks } from './support/checks.mjs';

const rounds = Number(process.argv[2] ?? 5);
let seed = 42;
const random = () => {
  seed = (seed * 1103515245 + 12345) % 2 ** 31;
  return seed / 2 ** 31;
};
const pick = (list) => list[Math.floor(random() * list.length)];
const VOCABULARY = (
  'refund approval limit agent team lead policy travel hotel night train journey expense report budget ' +
  'contract invoice supplier payment customer warranty defect return window office employee leave salary ' +
  'bonus review manager director board security incident access password laptop phone training course ' +
  'London Paris Berlin Tokyo Zurich Acme Globex Initech quarter year month week day within above below ' +
  'requires needs must may allowed covers includes excludes reimbursed approved booked filed reported'
).split(' ');
const number = () =>
  pick([
    `$${Math.floor(random() * 5000)}`,
    `${Math.floor(random() * 90)} days`,
    `${(random() * 10).toFixed(1)}%`,
  ]);
const sentence = (words) => {
  const out = [];
  for (let i = 0; i < words; i++) out.push(i % 7 === 3 ? number() : pick(VOCABULARY));
  out[0] = out[0][0].toUpperCase() + out[0].slice(1);
  return `${out.join(' ')}.`;
};

const sources = [];
for (let n = 1; n <= 20; n++) {
  let text = `# Source ${n}\n\n`;
  let section = 0;
  while (text.length < 20_000) {
    if (random() < 0.08) text += `\n## Section ${++section}\n\n`;
    text += `${sentence(12 + Math.floor(random() * 14))} `;
    if (random() < 0.2) text += '\n\n';
  }
  sources.push({
    n,
    kind: n % 2 ? 'web' : 'document',
    title: `Source ${n}`,
    location: `https://example.com/${n}`,
    text: text.slice(0, 20_000),
    status: 'read',
  });
}

// The report: sentences that restate a source sentence (with a few words changed), citing it.
const lines = ['# Report', ''];
let words = 0;
while (words < 3000) {
  const s = pick(sources);
  const from = pick(s.text.split(/(?<=\.)\s+/).filter((x) => x.length > 60));
  const claim = from
    .replace(/\.$/, '')
    .split(' ')
    .map((w) => (random() < 0.15 ? pick(VOCABULARY) : w))
    .join(' ');
  const cites = random() < 0.3 ? `[${s.n}][${(s.n % 20) + 1}]` : `[${s.n}]`;
  lines.push(`${random() < 0.3 ? '- ' : ''}${claim} ${cites}.`);
  words += claim.split(' ').length;
}
const answer = lines.join('\n');

const evidence = findEvidence(answer, sources);
const found = evidence.filter((e) => e.quote !== null).length;
console.log(
  `Report: ${words} words, ${lines.length - 2} cited lines; ${sources.length} sources of 20,000 characters; ${evidence.length} evidence entries, ${found} with a quote`,
);
const reference = await referenceChecks();
const { lines: table, figures } = timeChecks(
  [OURS, ...(reference ? [reference] : [])],
  answer,
  sources,
  rounds,
);
for (const line of table) console.log(line);
console.log(
  `targets (what a run waits for once its answer has ended; the sources are read while it streams): grounding warm ≤ 10 ms (${figures.ours.groundingAfterWarm}), grounding + evidence warm ≤ 20 ms (${figures.ours.afterWarm}); the checks on their own (reports --show): grounding ${figures.ours.groundingWarm.toFixed(1)}, both ${figures.ours.bothWarm.toFixed(1)}`,
);
