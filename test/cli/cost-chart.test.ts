import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { bar, costChart } from '../../src/cli/cost-chart.js';
import type { CostRow } from '../../src/store/store.js';
import { BIN, cleanEnv, ROOT, runCli, tempDb } from '../support/cli.js';
import { hasScript } from '../support/pty.js';
import { sqliteStore } from '../support/stores.js';

const plain = { cyan: (s: string) => s, dim: (s: string) => s };
const row = (key: string, costUsd: number | null, extra: Partial<CostRow> = {}): CostRow => ({
  key,
  calls: 1,
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  reasoningTokens: 0,
  costUsd,
  unpricedCalls: costUsd === null ? 1 : 0,
  cancelledCalls: 0,
  ...extra,
});
/** The bar of a chart line, in eighths of a cell. */
const eighths = (line: string) =>
  [...line].reduce((n, c) => n + (c === '█' ? 8 : Math.max(0, '▏▎▍▌▋▊▉'.indexOf(c) + 1)), 0);

describe('the cost chart', () => {
  it('draws bars in proportion to the dollars, with the figure beside each', async () => {
    const chart = costChart(
      [row('anthropic claude-sonnet-4-5', 4), row('openai gpt-5', 1), row('openai-compatible x', 2)],
      'model',
      80,
      plain,
    ).split('\n');
    expect(chart).toHaveLength(3);
    expect(chart[0]).toMatch(/^anthropic claude-sonnet-4-5 {2}█+ {2}\$4\.00$/);
    expect(chart[1]).toMatch(/\$1\.00$/);
    const [a, b, c] = chart.map(eighths);
    expect(b! / a!).toBeCloseTo(0.25, 1);
    expect(c! / a!).toBeCloseTo(0.5, 1);
    // Every line fits the terminal.
    for (const line of chart) expect(line.length).toBeLessThanOrEqual(80);
  });

  it('shows every day from the first to the last, the days without calls empty', async () => {
    const chart = costChart([row('2026-11-01', 1), row('2026-11-04', 0.5)], 'day', 60, plain).split('\n');
    expect(chart.map((l) => l.slice(0, 10))).toEqual([
      '2026-11-01',
      '2026-11-02',
      '2026-11-03',
      '2026-11-04',
    ]);
    expect(chart[1]).toMatch(/^2026-11-02 +—$/);
    expect(eighths(chart[3]!) * 2).toBeCloseTo(eighths(chart[0]!), -1);
  });

  it('gives a call of unknown price no bar, and a tiny spend a sliver', async () => {
    const chart = costChart([row('a', 10), row('b', 0.0001), row('c', null)], 'model', 80, plain).split('\n');
    expect(eighths(chart[1]!)).toBe(1);
    expect(chart[2]).toMatch(/^c +unknown$/);
    expect(bar(0, 10)).toBe('');
    expect(bar(1, 10)).toBe('█'.repeat(10));
    expect(bar(0.55, 10)).toBe('█████▌');
  });
});

async function seed(): Promise<string> {
  const path = tempDb();
  const store = await sqliteStore(path);
  const usage = { input: 1_000_000, cacheRead: 0, cacheWrite: 0, output: 0, reasoning: 0 };
  const base = { command: 'chat' as const, runId: 'r', step: 'chat', provider: 'openai', usage };
  await store.ledger.record({ ...base, model: 'gpt-5', ts: Date.parse('2026-11-02T12:00:00') });
  await store.ledger.record({ ...base, model: 'gpt-4.1', ts: Date.parse('2026-11-03T12:00:00') });
  await store.close();
  return path;
}

/** `agent <args>` on a pseudo-terminal (util-linux `script`): everything it printed. */
function onTerminal(args: string[], env: Record<string, string>): Promise<string> {
  const child = spawn('script', ['-qefc', `${process.execPath} ${BIN} ${args.join(' ')}`, '/dev/null'], {
    cwd: ROOT,
    env: cleanEnv({ COLUMNS: '100', LINES: '30', TERM: 'xterm', NO_COLOR: '1', ...env }),
  });
  let out = '';
  child.stdout.on('data', (d) => {
    out += d;
  });
  child.stdin.end();
  return new Promise((resolve) => child.on('close', () => resolve(out.replace(/\r/g, ''))));
}

describe('agent cost on a terminal and on a pipe', () => {
  it.skipIf(!hasScript)('draws bars per day and per model on a terminal', async () => {
    const db = await seed();
    const days = await onTerminal(['cost', '--by', 'day'], { AGENT_DB: db });
    expect(days).toMatch(/^2026-11-02 {2}█+[▏▎▍▌▋▊▉]? +\$1\.25$/m);
    expect(days).toMatch(/^2026-11-03 {2}█+ {2}\$2\.00$/m);
    const models = await onTerminal(['cost'], { AGENT_DB: db });
    expect(models).toMatch(/^openai gpt-4\.1 {2}█+ +\$2\.00$/m);
  });

  it('prints the table alone on a pipe, and the same JSON as before', async () => {
    const db = await seed();
    const r = await runCli(['cost', '--by', 'day'], { env: { AGENT_DB: db } });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(/[█▏▎▍▌▋▊▉]/);
    expect(r.stdout.trimEnd().split('\n').at(-1)).toMatch(/^TOTAL/);
    const json = await runCli(['cost', '--by', 'day', '--json'], { env: { AGENT_DB: db } });
    expect(Object.keys(JSON.parse(json.stdout))).toEqual(['totals', 'rows']);
  });
});
