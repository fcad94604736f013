import { describe, expect, it } from 'vitest';
import { AgentError, UsageError } from '../../src/errors.js';
import type { Price } from '../../src/providers/prices.js';
import { Budget, capTooLow } from '../../src/research/run/budget.js';
import { Purse } from '../../src/research/run/purse.js';

// A batch's runs share one purse: one run's spending, calls in flight and unwritten answer all count
// against the others' calls, so the cap holds for the batch.

// Output at $1 a token, no input cost: a call with maxTokens n costs at most $n.
const price = (): Price => ({ input: 0, output: 1_000_000, cacheRead: 0, cacheWrite: 0, source: 'test' });

const run = (purse: Purse, runId: string, writeTokens = 0) =>
  new Budget({
    limitUsd: purse.limitUsd,
    price,
    write: { model: 'w', maxTokens: writeTokens, baseChars: 0 },
    purse,
    runId,
  });

describe('a shared purse', () => {
  it("counts one run's spending against another's calls", async () => {
    const purse = new Purse(5, true);
    const a = run(purse, 'a');
    const b = run(purse, 'b');
    (await a.admit({ model: 'm', inputChars: 0, maxTokens: 4 }))!.settle(4);
    expect(b.spentUsd).toBe(4);
    // b's call does not fit: it waits while a may still give room back, and stops once a has left.
    const pending = b.admit({ model: 'm', inputChars: 0, maxTokens: 2 });
    purse.leave('a');
    expect(await pending).toBeUndefined();
    expect(b.stopped).toBe(true);
    expect(a.stopped).toBe(false);
    expect(purse.exhausted).toBe(true);
  });

  it('holds back the write step of every run that has begun, until it leaves', async () => {
    const purse = new Purse(10, true);
    const a = run(purse, 'a', 6);
    const b = run(purse, 'b', 3);
    expect(b.leftUsd).toBe(10);
    // a's first call (free) makes its write step ($6 at worst) a claim on the purse.
    (await a.admit({ model: 'm', inputChars: 0, maxTokens: 0 }))!.settle(0);
    expect(b.leftUsd).toBe(4);
    expect(a.leftUsd).toBe(10);
    // b's $2 call and its own $3 write do not fit beside a's $6: it waits for a, which is not waiting.
    let admitted: unknown = 'waiting';
    const pending = b.admit({ model: 'm', inputChars: 0, maxTokens: 2 }).then((t) => {
      admitted = t;
    });
    await new Promise((r) => setTimeout(r, 10));
    expect(admitted).toBe('waiting');
    purse.leave('a');
    await pending;
    expect(admitted).toBeTruthy();
    expect(b.stopped).toBe(false);
  });

  it('stops a run rather than let two wait for each other, and is spent when no run is left', async () => {
    const purse = new Purse(10, true);
    const a = run(purse, 'a', 4);
    const b = run(purse, 'b', 4);
    (await a.admit({ model: 'm', inputChars: 0, maxTokens: 0 }))!.settle(0);
    (await b.admit({ model: 'm', inputChars: 0, maxTokens: 0 }))!.settle(0);
    // a waits for b (not waiting); b then finds a waiting and nothing in flight: b stops.
    const first = a.admit({ model: 'm', inputChars: 0, maxTokens: 3 });
    expect(await b.admit({ model: 'm', inputChars: 0, maxTokens: 3 })).toBeUndefined();
    expect(purse.exhausted).toBe(false);
    // b writes (always admitted) and leaves: a's call fits now.
    (await b.admit({ model: 'w', inputChars: 0, maxTokens: 4, final: true }))!.settle(1);
    purse.leave('b');
    const ticket = await first;
    expect(ticket).toBeTruthy();
    ticket!.settle(3);
    // Alone, a call that does not fit leaves the batch nothing to start another question on.
    expect(await a.admit({ model: 'm', inputChars: 0, maxTokens: 9 })).toBeUndefined();
    expect(purse.exhausted).toBe(true);
  });

  it('makes a call wait for another run’s call in flight, then admits it when room comes back', async () => {
    const purse = new Purse(5, true);
    const a = run(purse, 'a');
    const b = run(purse, 'b');
    const ticket = await a.admit({ model: 'm', inputChars: 0, maxTokens: 4 });
    let admitted: unknown = 'waiting';
    const pending = b.admit({ model: 'm', inputChars: 0, maxTokens: 3 }).then((t) => {
      admitted = t;
    });
    await new Promise((r) => setTimeout(r, 10));
    expect(admitted).toBe('waiting');
    ticket!.settle(1);
    await pending;
    expect(admitted).toBeTruthy();
  });

  it("says a question was not started under a batch's cap, where a single run gets a usage error", () => {
    const plan = { model: 'small', inputChars: 0, maxTokens: 2 };
    const shared = new Purse(1, true);
    shared.spent = 0.5;
    const inBatch = capTooLow(run(shared, 'a', 1), plan);
    expect(inBatch).not.toBeInstanceOf(UsageError);
    expect(inBatch).toBeInstanceOf(AgentError);
    expect(inBatch.message).toBe(
      "Not started: the batch's $1.00 cap (--max-cost) has $0.5000 left, less than planning and writing this question can cost at worst ($3.00 with small). Raise the cap and run the batch again: answered questions are skipped.",
    );
    const alone = new Budget({ limitUsd: 1, price, write: { model: 'w', maxTokens: 1, baseChars: 0 } });
    expect(capTooLow(alone, plan)).toBeInstanceOf(UsageError);
  });
});
