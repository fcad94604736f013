import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createProvider } from '../../src/providers/registry.js';
import { LANGUAGE_RULE, REPORT_SYSTEM, WRITE_SYSTEM } from '../../src/research/chain/write.js';
import { runResearch } from '../../src/research/pipeline.js';
import { startStepModel } from '../support/step-model.js';
import { sqliteStoreNow } from '../support/stores.js';

// The answer is written in the reader's language, whatever the sources are written in.

let model: Awaited<ReturnType<typeof startStepModel>>;
beforeEach(async () => {
  model = await startStepModel((step) => {
    if (step === 'plan') return '{"documents": ["refunds"], "searches": []}';
    if (step === 'extract') return '- A support agent can refund up to $1,000.50 without approval.';
    return 'Ein Support-Mitarbeiter kann bis zu $1,000.50 ohne Genehmigung erstatten [1].';
  });
});
afterEach(() => model.close());

describe('answers in the language of the question', () => {
  it('the write and report prompts say so, and keep numbers as the sources write them', async () => {
    for (const system of [WRITE_SYSTEM, REPORT_SYSTEM]) {
      expect(system).toContain(LANGUAGE_RULE);
      expect(system).toMatch(/language of the question, whatever language the notes are in/);
      expect(system).toMatch(/numbers, amounts and dates exactly as the notes write them/);
    }
  });

  it('a German question over English sources reaches the writer with that instruction', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agent-lang-'));
    writeFileSync(
      join(dir, 'refunds.md'),
      '# Refunds\n\nA support agent can refund up to $1,000.50 without approval.\n',
    );
    const question = 'Wie viel darf ein Support-Mitarbeiter ohne Genehmigung erstatten?';
    for (const report of [false, true]) {
      const result = await runResearch({
        question,
        store: sqliteStoreNow(':memory:'),
        contentDir: dir,
        env: {},
        models: { provider: await createProvider('openai-compatible'), smallModel: 's', largeModel: 'l' },
        report,
      });
      const write = model.of('write').at(-1)!;
      expect(write.system).toContain(LANGUAGE_RULE);
      expect(write.prompt.startsWith(`Question: ${question}\n`)).toBe(true);
      expect(write.prompt).toMatch(/Write in the language of the question above\.$/);
      expect(result.answer).toMatch(/^Ein Support-Mitarbeiter/);
    }
  });
});
