// Shared by bench/grounding.mjs and bench/evidence.mjs: the time the grounding check and the evidence
// finder take on one input, ours (dist/) beside a reference commit's (bundled from git into a temporary
// folder), as CPU time (on a shared machine wall time is mostly waiting). Each figure is the median over
// fresh processes run in turn, ours then the reference: "first" is a process's first check (what one
// research run pays: regexes compiled, code not yet optimised), "warm" the median of 21 checks after 5.
// Each process also prints a digest of both checks' results: a faster check must give the same results
// as the reference, byte for byte (the table says whether it does).
//
// Run as a script it is that child process: node checks.mjs <grounding.js> <evidence.js> <input.json>
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const HERE = fileURLToPath(import.meta.url);
/** The last commit before the checks were made to read only what the claims need (third round). */
export const REFERENCE = 'b28bfb4';

/** A short digest of any JSON-able results, to compare two implementations' outputs byte for byte. */
export const digest = (results) =>
  createHash('sha256').update(JSON.stringify(results)).digest('hex').slice(0, 16);

export const OURS = {
  name: 'ours',
  grounding: join(ROOT, 'dist/research/checks/grounding/index.js'),
  evidence: join(ROOT, 'dist/research/checks/evidence/index.js'),
};

/** Both checks as of `rev`, bundled from git; undefined when git or esbuild cannot give them. */
export async function reference(rev = REFERENCE) {
  try {
    const { build } = await import('esbuild');
    const dir = mkdtempSync(join(tmpdir(), 'agent-bench-checks-'));
    execFileSync('sh', ['-c', `git archive ${rev} src | tar -x -C '${dir}'`], { cwd: ROOT, stdio: 'ignore' });
    await build({
      entryPoints: {
        grounding: join(dir, 'src/research/grounding/index.ts'),
        evidence: join(dir, 'src/research/evidence/index.ts'),
      },
      outdir: join(dir, 'out'),
      bundle: true,
      format: 'esm',
      platform: 'node',
      packages: 'external',
      logLevel: 'silent',
    });
    return {
      name: `before (${rev})`,
      grounding: join(dir, 'out/grounding.js'),
      evidence: join(dir, 'out/evidence.js'),
    };
  } catch {
    return undefined;
  }
}

/** The read-ahead module beside a grounding module's folder (research/checks/ now), or beside research/checks/ (before). */
const aheadOf = (groundingFile) =>
  [
    join(dirname(groundingFile), '../checks/read-ahead.js'),
    join(dirname(groundingFile), '../read-ahead.js'),
  ].find(existsSync) ?? join(dirname(groundingFile), '../checks/read-ahead.js');

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** CPU milliseconds that `f` takes. */
const cpu = (f) => {
  const start = process.cpuUsage();
  f();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
};

/** Times each implementation over `rounds` fresh processes, in turn; returns a table to print. */
export function timeChecks(impls, answer, sources, rounds = 5) {
  const input = join(mkdtempSync(join(tmpdir(), 'agent-bench-input-')), 'input.json');
  writeFileSync(input, JSON.stringify({ answer, sources }));
  const runs = new Map(impls.map((i) => [i.name, []]));
  for (let r = 0; r < rounds; r++)
    for (const impl of impls) {
      const out = execFileSync(process.execPath, [HERE, impl.grounding, impl.evidence, input], {
        encoding: 'utf8',
      });
      runs.get(impl.name).push(JSON.parse(out));
    }
  const cols = ['groundingFirst', 'groundingWarm', 'evidenceFirst', 'evidenceWarm', 'bothFirst', 'bothWarm'];
  const lines = [
    `CPU ms, median of ${rounds} fresh processes each     grounding       evidence        both`,
    '                                           first   warm   first   warm   first   warm',
  ];
  const figures = {};
  for (const impl of impls) {
    const r = runs.get(impl.name);
    figures[impl.name] = Object.fromEntries(cols.map((c) => [c, median(r.map((x) => x[c]))]));
    const cells = cols.map((c) => figures[impl.name][c].toFixed(1).padStart(c.endsWith('First') ? 8 : 7));
    const digests = [...new Set(r.map((x) => x.digest))];
    figures[impl.name].digest = digests.join(',');
    lines.push(`  ${impl.name.padEnd(39)}${cells.join('')}   results ${figures[impl.name].digest}`);
  }
  // Ours reads the sources while the answer streams: that reading, and what is left after the answer.
  for (const impl of impls) {
    const r = runs.get(impl.name);
    if (r[0].aheadFirst === undefined) continue;
    const f = (c) => median(r.map((x) => x[c])).toFixed(1);
    lines.push(
      `  ${impl.name}, sources read while the answer streams: ${f('aheadFirst')} first, ${f('aheadWarm')} warm; after the answer, grounding ${f('groundingAfterFirst')} first, ${f('groundingAfterWarm')} warm, both ${f('afterFirst')} first, ${f('afterWarm')} warm`,
    );
    figures[impl.name].afterFirst = Number(f('afterFirst'));
    figures[impl.name].afterWarm = Number(f('afterWarm'));
    figures[impl.name].groundingAfterWarm = Number(f('groundingAfterWarm'));
    if (r.some((x) => x.aheadDigest !== x.digest)) figures[impl.name].digest += ' (read ahead: DIFFERENT)';
  }
  const all = new Set(impls.map((i) => figures[i.name].digest));
  lines.push(all.size === 1 ? '  same results: yes' : '  same results: NO — the results differ');
  return { lines, figures };
}

// The child: one implementation's first and warm checks on the input.
if (process.argv[1] === HERE && process.argv[2] === '--ahead') {
  const [groundingFile, evidenceFile, inputFile] = process.argv.slice(3);
  const { answer, sources } = JSON.parse(readFileSync(inputFile, 'utf8'));
  const { checkGrounding } = await import(pathToFileURL(groundingFile).href);
  const { findEvidence } = await import(pathToFileURL(evidenceFile).href);
  const { readAheadNow } = await import(pathToFileURL(aheadOf(groundingFile)).href);
  let ahead;
  const readFirst = cpu(() => {
    ahead = readAheadNow(sources);
  });
  const grounding = () => checkGrounding(answer, sources, ahead.grounding);
  const evidence = () => findEvidence(answer, sources, ahead.evidence);
  const groundingAfterFirst = cpu(grounding);
  const evidenceAfterFirst = cpu(evidence);
  const afterFirst = groundingAfterFirst + evidenceAfterFirst;
  const results = { grounding: grounding(), evidence: evidence() };
  const reads = [];
  const afters = [];
  const groundings = [];
  for (let i = 0; i < 21; i++) {
    reads.push(cpu(() => readAheadNow(sources)));
    const g = cpu(grounding);
    groundings.push(g);
    afters.push(g + cpu(evidence));
  }
  console.log(
    JSON.stringify({
      aheadFirst: readFirst,
      aheadWarm: median(reads.slice(5)),
      afterFirst,
      afterWarm: median(afters.slice(5)),
      groundingAfterFirst,
      groundingAfterWarm: median(groundings.slice(5)),
      aheadDigest: digest(results),
    }),
  );
} else if (process.argv[1] === HERE) {
  const [groundingFile, evidenceFile, inputFile] = process.argv.slice(2);
  const { answer, sources } = JSON.parse(readFileSync(inputFile, 'utf8'));
  const { checkGrounding } = await import(pathToFileURL(groundingFile).href);
  const { findEvidence } = await import(pathToFileURL(evidenceFile).href);
  const grounding = () => checkGrounding(answer, sources);
  const evidence = () => findEvidence(answer, sources);
  const groundingFirst = cpu(grounding);
  const evidenceFirst = cpu(evidence);
  const results = digest({ grounding: grounding(), evidence: evidence() });
  for (let i = 0; i < 5; i++) {
    grounding();
    evidence();
  }
  const g = [];
  const e = [];
  const both = [];
  for (let i = 0; i < 21; i++) {
    const a = cpu(grounding);
    const b = cpu(evidence);
    g.push(a);
    e.push(b);
    both.push(a + b);
  }
  // A run reads the sources while the answer streams (research/checks/read-ahead.js): that reading, then both
  // checks given it — what is left once the answer has ended. In a fresh process of its own (below).
  const afterAnswer = existsSync(aheadOf(groundingFile))
    ? JSON.parse(
        execFileSync(process.execPath, [HERE, '--ahead', groundingFile, evidenceFile, inputFile], {
          encoding: 'utf8',
        }),
      )
    : {};
  console.log(
    JSON.stringify({
      groundingFirst,
      groundingWarm: median(g),
      evidenceFirst,
      evidenceWarm: median(e),
      bothFirst: groundingFirst + evidenceFirst,
      bothWarm: median(both),
      digest: results,
      ...afterAnswer,
    }),
  );
}
