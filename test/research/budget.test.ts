import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import type { Price } from '../../src/providers/prices.js';
import { type ResearchEvent, runResearch } from '../../src/research/pipeline.js';
import { resultJson } from '../../src/research/result-json.js';
import {
  Budget,
  CHARS_PER_TOKEN,
  maxCostSetting,
  parseUsd,
  requirePrices,
  worstCase,
} from '../../src/research/run/budget.js';
import { billedModel, contentFolder, price } from '../support/research-world.js';
import { sqliteStoreNow } from '../support/stores.js';

describe('parsing a cap', () => {
  it('takes dollars with or without $ and decimals; refuses zero, negatives, NaN, words and empty', async () => {
    expect(parseUsd('0.50')).toBe(0.5);
    expect(parseUsd('$2')).toBe(2);
    expect(parseUsd('.25')).toBe(0.25);
    for (const bad of ['0', '-1', 'NaN', 'abc', '', ' ', '1e3', 'Infinity', '1,50'])
      expect(parseUsd(bad)).toBeUndefined();
  });

  it('takes AGENT_MAX_COST when no flag is given; a bad value is a usage error', async () => {
    expect(maxCostSetting(undefined, { AGENT_MAX_COST: '1.5' })).toBe(1.5);
    expect(maxCostSetting(0.2, { AGENT_MAX_COST: '1.5' })).toBe(0.2);
    expect(maxCostSetting(undefined, {})).toBeUndefined();
    expect(() => maxCostSetting(undefined, { AGENT_MAX_COST: 'abc' })).toThrow(UsageError);
    expect(() => maxCostSetting(undefined, { AGENT_MAX_COST: '-2' })).toThrow(
      /AGENT_MAX_COST=-2 is not a valid cap/,
    );
  });

  it('needs a price for every model it covers, and says how to add one', async () => {
    expect(() => requirePrices('openai', ['gpt-5', 'gpt-5-pro'], {}, { AGENT_PRICES: '/x/p.json' })).toThrow(
      /price of gpt-5-pro, which is not known\. Add it to your price file \/x\/p\.json/,
    );
    expect(requirePrices('openai', ['gpt-5'], {})('gpt-5').output).toBe(10);
  });
});

describe('the worst case of a call', () => {
  it('is the input estimated from its characters plus the output at its cap', async () => {
    const chars = 30_000;
    const expected = ((chars / CHARS_PER_TOKEN) * 3 + 1000 * 15) / 1e6;
    expect(worstCase(price(3, 15), chars, 1000)).toBeCloseTo(expected, 10);
    // A prompt that may be written to the cache is priced at the cache-write rate when that is dearer.
    expect(worstCase({ ...price(3, 15), cacheWrite: 3.75 }, chars, 0)).toBeCloseTo(
      ((chars / CHARS_PER_TOKEN) * 3.75) / 1e6,
      10,
    );
  });
});

describe('the budget', () => {
  const budget = (limitUsd: number) =>
    new Budget({
      limitUsd,
      price: () => price(0, 1_000_000),
      write: { model: 'w', maxTokens: 0, baseChars: 0 },
    });

  it('admits calls while they fit, makes later ones wait for calls in flight, then stops', async () => {
    // Output at $1 a token: a call with maxTokens n costs at most $n.
    const b = budget(5);
    const a = await b.admit({ model: 'm', inputChars: 0, maxTokens: 2 });
    const c = await b.admit({ model: 'm', inputChars: 0, maxTokens: 2 });
    expect(a && c).toBeTruthy();
    let third: unknown = 'waiting';
    const pending = b.admit({ model: 'm', inputChars: 0, maxTokens: 2 }).then((t) => {
      third = t;
    });
    await new Promise((r) => setTimeout(r, 10));
    expect(third).toBe('waiting');
    a!.settle(1); // spent 1, reserved 2: the third fits now
    await pending;
    expect(third).toBeTruthy();
    c!.settle(2);
    (third as { settle: (n: number) => void }).settle(2); // spent 5
    expect(await b.admit({ model: 'm', inputChars: 0, maxTokens: 1 })).toBeUndefined();
    expect(b.stopped).toBe(true);
    expect(b.spentUsd).toBe(5);
  });

  it('always keeps room for the write step, which it never refuses', async () => {
    const b = new Budget({
      limitUsd: 10,
      price: () => price(0, 1_000_000),
      write: { model: 'w', maxTokens: 6, baseChars: 0 },
    });
    expect(await b.admit({ model: 'm', inputChars: 0, maxTokens: 5 })).toBeUndefined();
    expect(await b.admit({ model: 'w', inputChars: 0, maxTokens: 6, final: true })).toBeTruthy();
  });

  it('counts an extraction still running as future input of the write step', async () => {
    // Input at $1 a token: each extraction's output cap is held back as write input too.
    const b = new Budget({
      limitUsd: 10_000,
      price: () => ({ ...price(1_000_000, 0), cacheWrite: 0 }),
      write: { model: 'w', maxTokens: 0, baseChars: 0 },
    });
    expect(b.writeReserve()).toBe(0);
    const t = await b.admit({ model: 'm', inputChars: 0, maxTokens: 3000, notes: true });
    expect(b.writeReserve()).toBe(3000);
    t!.settle(0, 30 * CHARS_PER_TOKEN);
    expect(b.writeReserve()).toBeGreaterThanOrEqual(30);
    expect(b.writeReserve()).toBeLessThan(3000);
  });
});

// A run over twelve documents with a model whose token counts the test sets: 4,000 output tokens per
// extraction at $10 a million, an input of about 4 characters a token.
const docs = Object.fromEntries(
  Array.from({ length: 12 }, (_, i) => [
    `doc${i + 1}.md`,
    `# Doc ${i + 1}\n\nThe limit ${i + 1} is $${i + 100}.\n`,
  ]),
);
const PRICES = { small: price(1, 10), large: price(1, 10) };

function capped(
  maxCostUsd: number | undefined,
  concurrency = 4,
  more: { depth?: number; prices?: Record<string, Price> } = {},
) {
  const { base, provider } = billedModel(Object.keys(docs).map((d) => d.replace(/\.md$/, '')));
  const events: ResearchEvent[] = [];
  const promise = runResearch({
    question: 'What are the limits?',
    store: sqliteStoreNow(':memory:'),
    contentDir: contentFolder(docs),
    env: {},
    models: { provider, smallModel: 'small', largeModel: 'large' },
    userPrices: more.prices ?? PRICES,
    depth: more.depth,
    breadth: 12,
    concurrency,
    maxCostUsd,
    onEvent: (e) => events.push(e),
  });
  return { model: base, events, promise };
}

describe('a research run under a cap', () => {
  it('stops collecting before the cap, says so, and writes from the sources it read', async () => {
    const { model, events, promise } = capped(0.5);
    const result = await promise;
    const extracts = model.calls.filter((c) => c.step === 'extract');
    expect(extracts.length).toBeGreaterThan(0);
    expect(extracts.length).toBeLessThan(12);
    expect(result.budget).toEqual({ limitUsd: 0.5, spentUsd: result.usage.costUsd, stopped: true });
    expect(result.usage.costUsd!).toBeLessThanOrEqual(0.5);
    const notice = events.find((e) => e.type === 'notice' && e.message.startsWith('Stopped collecting'));
    expect(notice).toMatchObject({
      message: expect.stringMatching(
        new RegExp(
          `^Stopped collecting at \\$0\\.\\d+ of the \\$0\\.5000 cap: ${extracts.length} of 12 sources read\\.$`,
        ),
      ),
    });
    // Only the sources read are listed, numbered from 1, and only they reach the writer.
    expect(result.sources.map((s) => s.n)).toEqual(extracts.map((_, i) => i + 1));
    const write = model.calls.find((c) => c.step === 'write')!;
    expect(write.prompt.match(/^\[\d+\] /gm)).toHaveLength(extracts.length);
    expect(resultJson(result).budget).toEqual(result.budget);
  });

  it('never goes past the cap, whatever the cap and the concurrency', async () => {
    for (const [cap, concurrency] of [
      [0.3, 1],
      [0.37, 16],
      [0.45, 3],
      [0.62, 16],
      [0.8, 2],
    ] as const) {
      const { promise } = capped(cap, concurrency);
      const result = await promise;
      expect(result.usage.costUsd!, `cap ${cap}`).toBeLessThanOrEqual(cap);
    }
  });

  it('reads everything when the cap is generous, and reports it was not reached', async () => {
    const { model, promise } = capped(5);
    const result = await promise;
    expect(model.calls.filter((c) => c.step === 'extract')).toHaveLength(12);
    expect(result.budget).toMatchObject({ limitUsd: 5, stopped: false });
  });

  it('stops before a follow-up round that would break the cap, and writes from every source read', async () => {
    // Planning and following up are dear (a small model at $100 a million output tokens): the plan fits
    // with the write step's reserve, the follow-up after twelve extractions does not.
    const prices = { small: price(1, 100), large: price(1, 10) };
    const { model, events, promise } = capped(1, 4, { depth: 2, prices });
    const result = await promise;
    expect(model.calls.map((c) => c.step).filter((s) => s !== 'extract')).toEqual(['plan', 'write']);
    expect(result.sources).toHaveLength(12);
    expect(result.budget).toMatchObject({ stopped: true });
    expect(result.usage.costUsd!).toBeLessThanOrEqual(1);
    expect(events).toContainEqual({
      type: 'notice',
      message: expect.stringMatching(
        /^Stopped collecting at \$0\.\d+ of the \$1\.00 cap: 12 of 12 sources read\.$/,
      ),
    });
  });

  it('has no budget key without a cap', async () => {
    const result = await capped(undefined).promise;
    expect(result.budget).toBeUndefined();
    expect(resultJson(result)).not.toHaveProperty('budget');
  });

  it('refuses a cap too low to plan and write, before any call, as a usage error', async () => {
    const { model, promise } = capped(0.05);
    await expect(promise).rejects.toThrow(
      /The \$0\.05000 cap \(--max-cost\) does not cover planning and writing at their worst case \(\$0\.\d+ with small\): raise it to at least \$0\.\d+\./,
    );
    await promise.catch((e) => expect(e).toBeInstanceOf(UsageError));
    expect(model.calls).toHaveLength(0);
  });
});
