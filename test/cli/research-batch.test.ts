import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, tempDb } from '../support/cli.js';
import { json, type RecordedRequest, sse, startFakeServer } from '../support/fake-server.js';
import { hasScript, terminalAgent } from '../support/pty.js';
import { contentFolder, LOOPBACK_RESEARCH, prices } from '../support/research-world.js';
import { chatSse } from '../support/sse-builders.js';

// `agent research --batch` against a loopback model (OpenAI Chat Completions) that answers by step and
// records which question each call served, and for how long calls of each kind were in flight.

const DOCS = Object.fromEntries(
  Array.from({ length: 3 }, (_, i) => [
    `doc${i + 1}.md`,
    `# Doc ${i + 1}\n\nLimit ${i + 1} is $${i + 100}.\n`,
  ]),
);
const content = contentFolder(DOCS);
const QUESTIONS = Array.from({ length: 5 }, (_, i) => `Question ${i + 1}: what is limit ${i + 1}?`);
/** A promise and the function that resolves it. */
function resolver(): { promise: Promise<void>; arrived: () => void } {
  let arrived!: () => void;
  const promise = new Promise<void>((resolve) => {
    arrived = resolve;
  });
  return { promise, arrived };
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let server: Awaited<ReturnType<typeof startFakeServer>>;
/** Questions whose plan call the model refuses (HTTP 400). */
let refuse: Set<string>;
/** Extractions in flight now, and the most at once; questions between their plan and their answer. */
let extracting = 0;
let maxExtracting = 0;
const open = new Set<string>();
let maxOpen = 0;
let plans = 0;
let pairPlans = false;
let secondPlan = resolver();

const questionOf = (req: RecordedRequest) => QUESTIONS.find((q) => JSON.stringify(req.body).includes(q));

async function model(req: RecordedRequest) {
  const body = req.body as { model: string; messages: { content: string }[] };
  const system = body.messages[0]?.content ?? '';
  const question = questionOf(req) ?? '?';
  if (system.includes('You plan research')) {
    if (refuse.has(question)) return json(400, { error: { message: 'this question is refused' } });
    open.add(question);
    maxOpen = Math.max(maxOpen, open.size);
    // With pairing on, the first plan waits for a second question to start: two in flight at once is then
    // seen however slowly the machine runs, not only when the timing happens to allow it.
    plans++;
    if (plans === 2) secondPlan.arrived();
    if (pairPlans && plans === 1) await secondPlan.promise;
    await sleep(30);
    const documents = Object.keys(DOCS).map((d) => d.slice(0, -3));
    return sse(chatSse({ text: JSON.stringify({ documents }) }, body.model));
  }
  if (system.includes('You extract facts')) {
    extracting++;
    maxExtracting = Math.max(maxExtracting, extracting);
    await sleep(20);
    extracting--;
    return sse(chatSse({ text: '- a limit', usage: { input: 500, output: 5000 } }, body.model));
  }
  open.delete(question);
  return sse(chatSse({ text: 'The limit is listed [1].' }, body.model));
}

const modelEnv = (db: string) => ({
  OPENAI_BASE_URL: `${server.url}/v1`,
  AGENT_DB: db,
  AGENT_PRICES: prices({ small: { input: 1, output: 10 }, large: { input: 1, output: 10 } }),
});

function batchFile(lines: string[]): string {
  const path = join(mkdtempSync(join(tmpdir(), 'agent-batch-')), 'questions.txt');
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

const modelRequests = () => server.requests.filter((r) => r.url.endsWith('/chat/completions'));
const jsonLines = (stdout: string) =>
  stdout
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
const byLine = (objects: Record<string, unknown>[]) =>
  [...objects].sort((a, b) => (a.line as number) - (b.line as number));

beforeEach(async () => {
  refuse = new Set();
  extracting = maxExtracting = maxOpen = plans = 0;
  pairPlans = false;
  secondPlan = resolver();
  open.clear();
  server = await startFakeServer([], model);
});
afterEach(() => server.close());

describe('agent research --batch', () => {
  const batch = (args: string[], db: string, input?: string) =>
    runCli([...LOOPBACK_RESEARCH, '--content', content, ...args], { input, env: modelEnv(db) });

  it('answers every line, reports the failed one and goes on; a re-run skips what was answered', async () => {
    const db = tempDb();
    const lines = [
      '# limits',
      QUESTIONS[0]!,
      JSON.stringify({ question: QUESTIONS[1], report: true }),
      '',
      QUESTIONS[2]!,
      QUESTIONS[3]!,
      QUESTIONS[4]!,
    ];
    const file = batchFile(lines);
    refuse.add(QUESTIONS[2]!);
    pairPlans = true;
    const first = await batch(['--batch', file, '--parallel', '2', '--concurrency', '1'], db);
    expect(first.code).toBe(1);
    const out = byLine(jsonLines(first.stdout));
    expect(out.map((o) => o.line)).toEqual([2, 3, 5, 6, 7]);
    const failed = out.find((o) => o.line === 5)!;
    expect(failed).toEqual({
      line: 5,
      question: QUESTIONS[2],
      error: expect.stringMatching(/plan step failed/),
    });
    for (const o of out.filter((x) => x !== failed)) {
      expect(o).toMatchObject({ mode: 'model', answer: 'The limit is listed [1].', id: expect.any(Number) });
      expect(o.sources).toHaveLength(3);
    }
    expect(out.find((o) => o.line === 3)).toMatchObject({ format: 'report', settings: { report: true } });
    // Two questions at a time, and one extraction at a time across both (--concurrency is the batch's).
    expect(maxOpen).toBe(2);
    expect(maxExtracting).toBe(1);
    // On a pipe, stderr holds one summary line and nothing else.
    expect(first.stderr).toMatch(
      /^Batch of 5 questions: 4 answered, 1 failed · \$0\.\d{4} spent · \d+\.\d s\n$/,
    );

    // Again, the model now willing, with one more line: the same question as a report is not the same run.
    refuse.clear();
    server.requests.length = 0;
    const again = batchFile([...lines, JSON.stringify({ question: QUESTIONS[0], report: true })]);
    const second = await batch(['--batch', again, '--parallel', '2'], db);
    expect(second.code).toBe(0);
    const rerun = byLine(jsonLines(second.stdout));
    expect(rerun.map((o) => [o.line, o.skipped ?? false])).toEqual([
      [2, true],
      [3, true],
      [5, false],
      [6, true],
      [7, true],
      [8, false],
    ]);
    // A skipped line is its saved run, as the first batch printed it.
    expect(rerun[0]).toEqual({ ...out[0], skipped: true });
    const asked = new Set(modelRequests().map(questionOf));
    expect(asked).toEqual(new Set([QUESTIONS[2], QUESTIONS[0]]));
    expect(second.stderr).toMatch(/^Batch of 6 questions: 2 answered, 4 skipped \(answered before\) · /);
  });

  it('holds the whole batch to --max-cost: later questions fail with the cap in their error', async () => {
    const db = tempDb();
    const file = batchFile(QUESTIONS);
    const r = await batch(['--batch', file, '--parallel', '1', '--max-cost', '0.60'], db);
    expect(r.code).toBe(1);
    const out = byLine(jsonLines(r.stdout));
    expect(out).toHaveLength(5);
    const answered = out.filter((o) => !o.error);
    const failed = out.filter((o) => o.error);
    expect(answered.length).toBeGreaterThan(0);
    expect(failed.length).toBeGreaterThan(0);
    // In file order (one at a time): the answered lines first, then only failures.
    expect(out.slice(0, answered.length)).toEqual(answered);
    for (const o of failed) expect(o.error).toMatch(/cap \(--max-cost\)/);
    // Once the cap stops a run, later questions are not started: no plan is paid for them.
    const notStarted = failed.filter((o) =>
      /^Not started: the batch's \$0\.6000 cap/.test(o.error as string),
    );
    expect(notStarted.at(-1)).toBe(failed.at(-1));
    const asked = new Set(modelRequests().map(questionOf));
    for (const o of notStarted) expect(asked.has(o.question as string)).toBe(false);
    const spent = answered.reduce((sum, o) => sum + (o.usage as { costUsd: number }).costUsd, 0);
    expect(spent).toBeLessThanOrEqual(0.6);
    for (const o of answered) expect(o.budget).toMatchObject({ limitUsd: 0.6 });
    expect(r.stderr).toMatch(/· \$0\.\d{4} of the \$0\.6000 cap spent · /);
  });

  it.skipIf(!hasScript)('shows a progress bar with the spend on a terminal, then the summary', async () => {
    const file = batchFile(QUESTIONS.slice(0, 2));
    const t = terminalAgent(
      [...LOOPBACK_RESEARCH, '--content', content, '--batch', file],
      modelEnv(tempDb()),
    );
    await t.waitFor(/░+ 0 of 2 done · \$0\.00 · 0:0\d/);
    await t.waitFor(/█+░* 1 of 2 done · \$0\.\d{4} · 0:\d\d/);
    await t.waitFor(/Batch of 2 questions: 2 answered · \$0\.\d{4} spent/);
    expect(await t.exited).toBe(0);
    expect(t.out().match(/\{"line":\d/g)).toHaveLength(2);
  });

  it('reads the questions from stdin with -', async () => {
    const r = await batch(['--batch', '-', '--json'], tempDb(), `${QUESTIONS[0]}\n`);
    expect(r.code).toBe(0);
    const [only, ...rest] = jsonLines(r.stdout);
    expect(rest).toEqual([]);
    expect(only).toMatchObject({ line: 1, question: QUESTIONS[0], mode: 'model' });
  });

  it('refuses what makes no sense with a batch as usage errors, before any model call', async () => {
    const file = batchFile([QUESTIONS[0]!]);
    const cases: [string[], RegExp][] = [
      [['--batch', file, 'a question'], /^agent: --batch reads the questions from its file/],
      [
        ['--batch', file, '--plan'],
        /^agent: --plan is for a single question and cannot be used with --batch/,
      ],
      [['--batch', file, '--out', 'x.md'], /^agent: --out is for a single question/],
      [['--batch', file, '--plan-file', 'p.json'], /^agent: --plan-file is for a single question/],
      [['--parallel', '2', 'a question'], /^agent: --parallel sets how many questions of a --batch run/],
      [['--batch', file, '--parallel', '0'], /--parallel <n>.*expected a whole number of at least 1/],
      [
        ['--batch', join(tmpdir(), 'no-such-batch.txt')],
        /^agent: Cannot read the batch file .*no-such-batch/,
      ],
      [['--batch', batchFile(['# nothing', ''])], /^agent: The batch file .* holds no questions/],
      [[], /^agent: Ask a question/],
    ];
    for (const [args, message] of cases) {
      const r = await batch(args, tempDb());
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stdout).toBe('');
    }
    expect(modelRequests()).toHaveLength(0);
  });
});
