import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createProvider } from '../../../src/providers/registry.js';
import { parseVerdicts } from '../../../src/research/checks/verify.js';
import { type ResearchOptions, runResearch } from '../../../src/research/pipeline.js';
import { resultJson } from '../../../src/research/result-json.js';
import { startStepModel } from '../../support/step-model.js';
import { sqliteStoreNow } from '../../support/stores.js';

// --verify through the real OpenAI SDK client against a loopback server that answers each step.

const ANSWER = [
  'A support agent can refund up to $200 without approval [1].',
  'Refunds above $200 need a team lead [1].',
  'Trains are preferred for journeys under 500 km [2].',
  'The office plants are watered on Mondays [2].',
].join(' ');

let model: Awaited<ReturnType<typeof startStepModel>>;
/** What the verify step answers, call by call; the last one repeats. */
let verifyReplies: string[] = [];
let answer = ANSWER;
const verifyPrompt = (i: number) => model.of('verify')[i]!.prompt;

beforeEach(async () => {
  answer = ANSWER;
  model = await startStepModel((step, prompt, i) => {
    if (step === 'plan') return '{"documents": ["refunds", "travel"], "searches": []}';
    if (step === 'extract') return '- a fact';
    if (step === 'verify' && verifyReplies.length === 0) {
      const count = prompt.match(/^Claim \d+:/gm)?.length ?? 0;
      return JSON.stringify(
        Array.from({ length: count }, (_, k) => ({ claim: k + 1, verdict: 'supported', reason: 'ok' })),
      );
    }
    if (step === 'verify') return verifyReplies[Math.min(i, verifyReplies.length - 1)]!;
    return answer;
  });
});

afterEach(() => model.close());

function content(): string {
  const dir = mkdtempSync(join(tmpdir(), 'agent-verify-'));
  writeFileSync(
    join(dir, 'refunds.md'),
    '# Refunds\n\nA support agent can refund up to $200 without approval.\nRefunds above $200 need a team lead.\n',
  );
  writeFileSync(join(dir, 'travel.md'), '# Travel\n\nTrains are preferred for journeys under 500 km.\n');
  return dir;
}

async function run(extra: Partial<ResearchOptions> = {}) {
  const store = sqliteStoreNow(':memory:');
  const db = store.db;
  const result = await runResearch({
    question: 'How do refunds and travel work?',
    store,
    contentDir: content(),
    env: {},
    models: {
      provider: await createProvider('openai-compatible'),
      smallModel: 'small-m',
      largeModel: 'large-m',
    },
    runId: 'run-v',
    verify: true,
    ...extra,
  });
  const ledger = db
    .prepare("SELECT step, model, cost_usd AS cost FROM usage_ledger WHERE run_id = 'run-v' ORDER BY id")
    .all() as { step: string; model: string; cost: number | null }[];
  return { result, ledger, json: resultJson(result) };
}

const ALL_FOUR = JSON.stringify([
  { claim: 1, verdict: 'supported', reason: 'The passage states the $200 limit.' },
  { claim: 2, verdict: 'supported', reason: 'Stated.' },
  { claim: 3, verdict: 'partial', reason: 'The passage prefers trains but gives no\nexception.' },
  { claim: 4, verdict: 'unsupported', reason: 'Nothing about plants.' },
]);

describe('--verify', () => {
  it('judges every cited claim in one call with its evidence, records it as step verify, and counts it', async () => {
    verifyReplies = [`Here you go:\n\`\`\`json\n${ALL_FOUR}\n\`\`\``];
    const { result, ledger, json } = await run();
    expect(json.verification).toEqual([
      {
        sentence: 'A support agent can refund up to $200 without approval [1].',
        verdict: 'supported',
        reason: 'The passage states the $200 limit.',
      },
      { sentence: 'Refunds above $200 need a team lead [1].', verdict: 'supported', reason: 'Stated.' },
      {
        sentence: 'Trains are preferred for journeys under 500 km [2].',
        verdict: 'partial',
        reason: 'The passage prefers trains but gives no exception.',
      },
      {
        sentence: 'The office plants are watered on Mondays [2].',
        verdict: 'unsupported',
        reason: 'Nothing about plants.',
      },
    ]);
    expect(json.verificationComplete).toBe(true);
    expect(ledger.map((r) => `${r.step}:${r.model}`)).toEqual([
      'plan:small-m',
      'extract:large-m',
      'extract:large-m',
      'write:large-m',
      'verify:small-m',
    ]);
    expect(result.usage.calls).toBe(5);
    // The model sees each claim with its cited passage, and says so when there is none.
    expect(verifyPrompt(0)).toContain(
      'Claim 1: A support agent can refund up to $200 without approval [1].\n  [1] (Refunds): "A support agent can refund up to $200 without approval."',
    );
    expect(verifyPrompt(0)).toContain(
      'Claim 4: The office plants are watered on Mondays [2].\n  [2] (nothing close to this claim was found in this source)',
    );
  });

  it('runs with an unpriced model (cost unknown) and with priced ones adds the check to the cost', async () => {
    verifyReplies = [ALL_FOUR];
    const unpriced = await run();
    expect(unpriced.result.usage.costUsd).toBeNull();
    expect(unpriced.json.verification).toHaveLength(4);

    const price = { input: 1, output: 2, cacheRead: 0.1, cacheWrite: 1, source: 'test' };
    const priced = await run({ userPrices: { 'small-m': price, 'large-m': price } });
    const total = priced.ledger.reduce((sum, r) => sum + r.cost!, 0);
    const verifyCost = priced.ledger.find((r) => r.step === 'verify')!.cost!;
    expect(verifyCost).toBeGreaterThan(0);
    expect(priced.result.usage.costUsd).toBeCloseTo(total, 10);
  });

  it('asks again after an unusable reply and is complete when the second is usable', async () => {
    verifyReplies = ['I think they are mostly fine.', ALL_FOUR];
    const { ledger, json } = await run();
    expect(ledger.filter((r) => r.step === 'verify')).toHaveLength(2);
    expect(json.verificationComplete).toBe(true);
    expect(json.verification).toHaveLength(4);
  });

  it('marks the verification incomplete after two unusable replies, and the answer stands', async () => {
    verifyReplies = ['[{"claim": 1, "verdict": "maybe"}]'];
    const { result, ledger, json } = await run();
    expect(ledger.filter((r) => r.step === 'verify')).toHaveLength(2);
    expect(json.verification).toEqual([]);
    expect(json.verificationComplete).toBe(false);
    expect(result.answer).toBe(ANSWER);
  });

  it('keeps the good verdicts of a reply that misses some, and says the check is incomplete', async () => {
    const three = JSON.parse(ALL_FOUR).slice(0, 3);
    verifyReplies = ['not json', JSON.stringify(three)];
    const { json } = await run();
    expect((json.verification as unknown[]).length).toBe(3);
    expect(json.verificationComplete).toBe(false);
  });

  it('judges a long answer in calls of eight claims', async () => {
    const facts = Array.from(
      { length: 10 },
      (_, i) => `Refunds above $200 need a team lead, rule ${i + 1} [1].`,
    );
    answer = facts.join(' ');
    // Each call is answered for as many claims as its prompt holds (the two calls may arrive in any order).
    verifyReplies = [];
    const { json } = await run();
    const sizes = model.of('verify').map((p) => p.prompt.match(/^Claim \d+:/gm)?.length);
    expect(sizes.sort()).toEqual([2, 8]);
    expect(json.verificationComplete).toBe(true);
    expect((json.verification as unknown[]).length).toBe(10);
  });

  it('refuses to run in extractive mode', async () => {
    await expect(run({ models: undefined })).rejects.toThrow(/--verify needs a model/);
  });
});

describe('reading a verdict reply', () => {
  it('needs a valid verdict for every claim', async () => {
    const two =
      '[{"claim":1,"verdict":"Supported","reason":"ok"},{"claim":2,"verdict":"partial","reason":"half"}]';
    expect(parseVerdicts(two, 2)?.get(1)).toEqual({ verdict: 'supported', reason: 'ok' });
    expect(parseVerdicts(two, 3)?.size).toBe(2);
    expect(parseVerdicts('{"verdict": "supported"}', 1)).toBeUndefined();
    expect(parseVerdicts('[not json]', 1)).toBeUndefined();
  });
});
