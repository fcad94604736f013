import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open.js';
import { deleteRun, saveRun } from '../../src/store/research-runs.js';
import { runTexts } from '../../src/store/run-texts.js';

const run = (texts: { n: number; text: string }[]) => ({
  question: 'q',
  mode: 'model',
  answer: 'a [1]',
  costUsd: null,
  result: {},
  texts,
});

describe('source texts kept with saved runs', () => {
  it('stores each distinct text once, compressed, and gives every run its own texts back', () => {
    const db = openStore(':memory:');
    const policy = `# Refunds\n\n${'A support agent can refund up to $200 without approval. '.repeat(200)}`;
    const a = saveRun(
      db,
      run([
        { n: 1, text: policy },
        { n: 2, text: 'Page one — €1.000,00 ✓' },
      ]),
    );
    const b = saveRun(
      db,
      run([
        { n: 1, text: 'Another page.' },
        { n: 2, text: policy },
      ]),
    );
    expect(runTexts(db, a)).toEqual(
      new Map([
        [1, policy],
        [2, 'Page one — €1.000,00 ✓'],
      ]),
    );
    expect(runTexts(db, b)).toEqual(
      new Map([
        [1, 'Another page.'],
        [2, policy],
      ]),
    );
    const rows = db.prepare('SELECT chars, length(body) AS bytes FROM source_texts').all() as {
      chars: number;
      bytes: number;
    }[];
    expect(rows).toHaveLength(3);
    const stored = rows.find((r) => r.chars === policy.length)!;
    expect(stored.bytes).toBeLessThan(policy.length / 10);
  });

  it('deletes a run’s texts with it, but not a text another run still uses', () => {
    const db = openStore(':memory:');
    const a = saveRun(
      db,
      run([
        { n: 1, text: 'shared' },
        { n: 2, text: 'only a' },
      ]),
    );
    const b = saveRun(db, run([{ n: 1, text: 'shared' }]));
    expect(deleteRun(db, a)).toBe(true);
    expect(runTexts(db, a).size).toBe(0);
    expect(runTexts(db, b)).toEqual(new Map([[1, 'shared']]));
    expect(db.prepare('SELECT count(*) FROM source_texts').pluck().get()).toBe(1);
  });

  it('keeps nothing of a run whose texts could not be saved', () => {
    const db = openStore(':memory:');
    // The run row goes in first; a text that cannot be stored must take it back out.
    const broken = [{ n: 1, text: undefined as unknown as string }];
    expect(() => saveRun(db, run(broken))).toThrow();
    expect(db.prepare('SELECT count(*) FROM research_runs').pluck().get()).toBe(0);
  });
});
