import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDb } from '../support/cli.js';
import { sqliteStore } from '../support/stores.js';

const T0 = Date.UTC(2026, 2, 1, 9, 30);
const LONG =
  'Which refunds above one thousand dollars need a second approval from Finance, and how long does that approval usually take in practice?';

/** The result object as `agent research --json` prints it (the parts these tests read). */
const refundsResult = {
  question: 'How much can a support agent refund?',
  mode: 'model',
  answer: 'A support agent can refund up to $200 per order [1]. Managers approve more [2].',
  sources: [
    { n: 1, title: 'Refunds Policy', location: '/docs/policies/refunds.md', kind: 'document', read: 'read' },
    {
      n: 2,
      title: 'Approvals',
      location: 'https://example.com/approvals',
      kind: 'web',
      read: 'read',
      readAt: '2026-03-01T09:29:00.000Z',
    },
  ],
  citations: { cited: [1, 2], dangling: [], uncited: [] },
  grounding: { checked: 2, unsupported: [] },
  usage: { calls: 3, costUsd: 0.0123 },
  format: 'answer',
  createdAt: new Date(T0).toISOString(),
};

async function seeded() {
  const path = tempDb();
  const store = await sqliteStore(path);
  const refunds = await store.runs.save({
    question: refundsResult.question,
    mode: 'model',
    answer: refundsResult.answer,
    costUsd: 0.0123,
    result: refundsResult,
    createdAt: T0,
  });
  const travel = await store.runs.save({
    question: 'What is the hotel limit in London?',
    mode: 'extractive',
    answer: '- Hotels in London: up to $300 a night [1]',
    costUsd: 0,
    result: { question: 'What is the hotel limit in London?', mode: 'extractive', sources: [] },
    createdAt: T0 + 3_600_000,
  });
  const long = await store.runs.save({
    question: LONG,
    mode: 'model',
    answer: 'Refunds above $5,000 also need Finance [1].',
    costUsd: null,
    result: { question: LONG },
    createdAt: T0 + 7_200_000,
  });
  await store.close();
  const run = (...args: string[]) =>
    runCli(['--db', path, 'reports', ...args], { env: { TZ: 'UTC', AGENT_USER: 'tester' } });
  return { run, refunds, travel, long };
}

describe('agent reports', () => {
  it('says plainly that nothing is saved yet', async () => {
    const r = await runCli(['--db', tempDb(), 'reports']);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toMatch(/No research runs saved yet/);
  });

  it('lists runs newest first, one line each, the question cut to the width', async () => {
    const { run, refunds, travel, long } = await seeded();
    const r = await run();
    expect(r).toMatchObject({ code: 0, stderr: '' });
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(
      new RegExp(`^#${long}\\s+2026-03-01 11:30\\s+model\\s+unknown\\s+Which refunds`),
    );
    expect(lines[0]).toMatch(/…$/);
    expect(lines[0]!.length).toBeLessThanOrEqual(100);
    expect(lines[1]).toMatch(
      new RegExp(
        `^#${travel}\\s+2026-03-01 10:30\\s+extractive\\s+\\$0\\.00\\s+What is the hotel limit in London\\?$`,
      ),
    );
    expect(lines[2]).toMatch(
      new RegExp(
        `^#${refunds}\\s+2026-03-01 09:30\\s+model\\s+\\$0\\.01230\\s+How much can a support agent refund\\?$`,
      ),
    );
    const limited = await run('-n', '1');
    expect(limited.stdout.trimEnd().split('\n')).toHaveLength(1);
  });

  it('searches questions and answers, and prints JSON for scripts', async () => {
    const { run, refunds, long } = await seeded();
    const [found, none, json] = await Promise.all([run('refunds'), run('kangaroo'), run('--json', 'London')]);
    expect(
      found.stdout
        .trimEnd()
        .split('\n')
        .map((l) => l.split(/\s+/)[0]),
    ).toEqual([`#${long}`, `#${refunds}`]);
    expect(none).toMatchObject({ code: 0, stdout: 'No saved research runs match "kangaroo".\n' });

    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual([
      {
        id: expect.any(Number),
        question: 'What is the hotel limit in London?',
        mode: 'extractive',
        createdAt: '2026-03-01T10:30:00.000Z',
        costUsd: 0,
        status: 'done',
        user: 'tester',
      },
    ]);
  });

  it('shows one run again: the answer and its sources, or the saved JSON with its id', async () => {
    const { run, refunds } = await seeded();
    const text = await run('--show', String(refunds));
    expect(text).toMatchObject({ code: 0, stderr: '' });
    expect(text.stdout).toContain(`Research run #${refunds} · 2026-03-01 09:30 · model · $0.01`);
    expect(text.stdout).toContain(refundsResult.answer);
    expect(text.stdout).toContain(
      'Sources\n[1] Refunds Policy — /docs/policies/refunds.md\n[2] Approvals — https://example.com/approvals (read 2026-03-01)\n',
    );

    const json = await run('--show', String(refunds), '--json');
    expect(json.code).toBe(0);
    const parsed = JSON.parse(json.stdout);
    expect(parsed).toEqual({ id: refunds, user: 'tester', ...refundsResult });
    expect(Object.keys(parsed)[0]).toBe('id');
  });

  it('writes a shown run as Markdown with --out', async () => {
    const { run, refunds } = await seeded();
    const file = join(mkdtempSync(join(tmpdir(), 'agent-reports-')), 'run.md');
    const r = await run('--show', String(refunds), '--out', file);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(refundsResult.answer);
    expect(r.stderr).toContain(`Written to ${file}`);
    expect(readFileSync(file, 'utf8')).toBe(
      [
        '# How much can a support agent refund?',
        '',
        refundsResult.answer,
        '',
        '## Sources',
        '',
        '1. Refunds Policy — `/docs/policies/refunds.md`',
        '2. Approvals — <https://example.com/approvals>, read 2026-03-01',
        '',
      ].join('\n'),
    );
    const unwritable = await run('--show', String(refunds), '--out', '/no/such/folder/run.md');
    expect(unwritable.code).toBe(2);
    expect(unwritable.stderr).toBe(
      'agent: Cannot write --out /no/such/folder/run.md: the folder /no/such/folder does not exist.\n',
    );
  });

  it('deletes a run and says so; the run is gone', async () => {
    const { run, travel } = await seeded();
    const r = await run('--delete', String(travel));
    expect(r).toMatchObject({ code: 0, stdout: `Deleted research run #${travel}.\n` });
    const list = await run();
    expect(list.stdout).not.toMatch(/London/);
    const again = await run('--show', String(travel));
    expect(again.code).toBe(2);
  });

  it('refuses an unknown run number with how to list runs, and bad flags, with exit 2', async () => {
    const { run } = await seeded();
    for (const flag of ['--show', '--delete']) {
      const r = await run(flag, '999');
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(
        'agent: There is no saved research run #999. `agent reports` lists them with their numbers.\n',
      );
    }
    const bad: [string[], RegExp][] = [
      [['--show', 'abc'], /--show <id>.*expected a whole number/],
      [['--show', '0'], /expected a whole number of at least 1/],
      [['--show', '1', '--delete', '1'], /cannot be used with/],
      [['--out', 'x.md'], /use it with --show <id>/],
      [['--show', '1', 'refunds'], /take a run number, not search words/],
      [['--limit', '-3'], /--limit <n>.*expected a whole number/],
    ];
    const results = await Promise.all(bad.map(([args]) => run(...args)));
    results.forEach((r, i) => {
      expect(r.code, bad[i]![0].join(' ')).toBe(2);
      expect(r.stderr).toMatch(bad[i]![1]);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    });
  });
});
