import { afterEach, describe, expect, it } from 'vitest';
import { sqliteFileOf, storesUnderTest } from '../support/stores.js';

const run = (texts: { n: number; text: string }[]) => ({
  question: 'q',
  mode: 'model',
  answer: 'a [1]',
  costUsd: null,
  result: {},
  texts,
});

describe.each(storesUnderTest())('source texts kept with saved runs ($name)', (kind) => {
  afterEach(() => kind.close());

  it.runIf(kind.name === 'sqlite')(
    'stores each distinct text once, compressed, and gives every run its own texts back',
    async () => {
      const store = await kind.open();
      const db = sqliteFileOf(store);
      const policy = `# Refunds\n\n${'A support agent can refund up to $200 without approval. '.repeat(200)}`;
      const a = await store.runs.save(
        run([
          { n: 1, text: policy },
          { n: 2, text: 'Page one — €1.000,00 ✓' },
        ]),
      );
      const b = await store.runs.save(
        run([
          { n: 1, text: 'Another page.' },
          { n: 2, text: policy },
        ]),
      );
      expect(await store.runs.texts(a)).toEqual(
        new Map([
          [1, policy],
          [2, 'Page one — €1.000,00 ✓'],
        ]),
      );
      expect(await store.runs.texts(b)).toEqual(
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
    },
  );

  it.runIf(kind.name === 'sqlite')(
    'deletes a run’s texts with it, but not a text another run still uses',
    async () => {
      const store = await kind.open();
      const db = sqliteFileOf(store);
      const a = await store.runs.save(
        run([
          { n: 1, text: 'shared' },
          { n: 2, text: 'only a' },
        ]),
      );
      const b = await store.runs.save(run([{ n: 1, text: 'shared' }]));
      expect(await store.runs.delete(a)).toBe(true);
      expect((await store.runs.texts(a)).size).toBe(0);
      expect(await store.runs.texts(b)).toEqual(new Map([[1, 'shared']]));
      expect(db.prepare('SELECT count(*) FROM source_texts').pluck().get()).toBe(1);
    },
  );

  it.runIf(kind.name === 'sqlite')('keeps nothing of a run whose texts could not be saved', async () => {
    const store = await kind.open();
    const db = sqliteFileOf(store);
    // The run row goes in first; a text that cannot be stored must take it back out.
    const broken = [{ n: 1, text: undefined as unknown as string }];
    await expect(store.runs.save(run(broken))).rejects.toThrow();
    expect(db.prepare('SELECT count(*) FROM research_runs').pluck().get()).toBe(0);
  });
});
