import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, tempDb } from '../support/cli.js';
import { startStepModel } from '../support/step-model.js';

// Evidence and --verify as a user meets them: the flag, the JSON keys, the lines under the answer, and
// a saved run's evidence after its source file is gone.

const QUESTION = 'What do refunds and plants need?';
const ANSWER =
  'A support agent can refund up to $200 without approval [1]. The office plants are watered on Mondays [1].';
const model = ['--provider', 'openai-compatible', '--small-model', 's', '--large-model', 'l'];

let step: Awaited<ReturnType<typeof startStepModel>>;
let verifyReply = '';
beforeEach(async () => {
  step = await startStepModel((name) => {
    if (name === 'plan') return '{"documents": ["refunds"], "searches": []}';
    if (name === 'extract') return '- Agents can refund up to $200.';
    if (name === 'verify') return verifyReply;
    return ANSWER;
  });
});
afterEach(() => step.close());

function content(): string {
  const dir = mkdtempSync(join(tmpdir(), 'agent-evidence-'));
  writeFileSync(
    join(dir, 'refunds.md'),
    '# Refunds\n\n## Limits\n\nA support agent can refund up to $200 without approval.\n',
  );
  return dir;
}

describe('agent research: evidence and --verify', () => {
  it('refuses --verify in extractive mode with one line, exit 2', async () => {
    const r = await runCli(['research', '--extractive', '--verify', QUESTION], {
      env: { AGENT_DB: tempDb() },
    });
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toMatch(/^agent: --verify needs a model.*extractive mode uses none/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stdout).toBe('');
  });

  it('prints the evidence in --json, keeps it with the run, and shows it after the file is deleted', async () => {
    const dir = content();
    const env = { OPENAI_BASE_URL: `${step.url}/v1`, AGENT_DB: tempDb() };
    const r = await runCli(['research', ...model, '--content', dir, '--json', QUESTION], { env });
    expect(r.code).toBe(0);
    const json = JSON.parse(r.stdout);
    for (const e of json.evidence)
      expect(Object.keys(e)).toEqual(['sentence', 'cite', 'quote', 'where', 'url', 'score']);
    expect(json.evidence.map((e: Record<string, unknown>) => Object.values(e))).toEqual([
      [
        'A support agent can refund up to $200 without approval [1].',
        1,
        'A support agent can refund up to $200 without approval.',
        'Refunds > Limits',
        null,
        1,
      ],
      ['The office plants are watered on Mondays [1].', 1, null, '', null, 0],
    ]);
    expect(json).not.toHaveProperty('verification');

    rmSync(dir, { recursive: true });
    const shown = await runCli(['reports', '--show', '1', '--json'], { env });
    expect(JSON.parse(shown.stdout).evidence).toEqual(json.evidence);
    const terminal = await runCli(['reports', '--show', '1'], { env });
    expect(terminal.stderr).toMatch(
      /No supporting passage found in the cited source \(1 of 2 cited sentence\(s\)\):\n\s+"The office plants are watered on Mondays \[1\]\." — nothing close in \[1\]/,
    );
  });

  it('--verify lists partial and unsupported claims under the answer and counts the check in the cost line', async () => {
    verifyReply = JSON.stringify([
      { claim: 1, verdict: 'supported', reason: 'Stated.' },
      { claim: 2, verdict: 'unsupported', reason: 'The passage is about refunds only.' },
    ]);
    const env = { OPENAI_BASE_URL: `${step.url}/v1`, AGENT_DB: tempDb() };
    const r = await runCli(['research', ...model, '--content', content(), '--verify', QUESTION], { env });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/Checking each cited claim against its evidence \(small model\)/);
    expect(r.stderr).toMatch(
      /Not supported by the cited passages, says the model check \(1 of 2\):\n\s+unsupported: "The office plants are watered on Mondays \[1\]\." — The passage is about refunds only\./,
    );
    expect(r.stderr).toMatch(/No supporting passage found in the cited source \(1 of 2/);
    // plan, extract, write and verify.
    expect(r.stderr).toMatch(/4 model calls/);
    expect(r.stdout).toContain(ANSWER);

    const shown = JSON.parse((await runCli(['reports', '--show', '1', '--json'], { env })).stdout);
    expect(shown.verificationComplete).toBe(true);
    expect(shown.verification.map((v: { verdict: string }) => v.verdict)).toEqual([
      'supported',
      'unsupported',
    ]);
  });
});
