import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { refreshIndex } from '../../../src/research/documents/index.js';
import { embedMissing } from '../../../src/research/retrieval/embed-index.js';
import type { Store } from '../../../src/store/store.js';
import { sqliteStore } from '../../support/stores.js';

// Embedding a folder reads each round while the last one's calls are out and writes vectors while the
// calls go on. However slow the calls and the writes (a server's, here delayed at random), every text is
// sent once, and every passage ends with a vector.

let dir: string;
let store: Store;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'agent-embed-rounds-'));
  // 2,600 passages: three rounds at one call in flight, two at two.
  for (let d = 0; d < 260; d++) {
    const sections = Array.from(
      { length: 10 },
      (_, s) => `## Part ${s}\n\nLine ${d}-${s} of the handbook.\n`,
    );
    writeFileSync(
      join(dir, `h-${String(d).padStart(3, '0')}.md`),
      `# Handbook ${d}\n\n${sections.join('\n')}`,
    );
  }
  // A text in the first document and the last: read in two rounds.
  writeFileSync(join(dir, 'a-first.md'), '# Notice\n\n## Disclaimer\n\nNothing here is advice.\n');
  writeFileSync(join(dir, 'z-last.md'), '# Notice\n\n## Disclaimer\n\nNothing here is advice.\n');
  store = await sqliteStore();
  await refreshIndex(store, dir);
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

it('sends every text once and keeps every vector, whatever the calls and writes take', async () => {
  let run = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(1, 2),
      fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 8 }),
      fc.array(fc.integer({ min: 0, max: 15 }), { minLength: 1, maxLength: 8 }),
      async (parallel, callMs, writeMs) => {
        const space = `test:model-${run++}@4`;
        let calls = 0;
        let writes = 0;
        // The store's writes take a while, as a server's do; everything else is the store's own.
        const slow: Store = {
          ...store,
          vectors: {
            ...store.vectors,
            unavailable: () => store.vectors.unavailable(),
            countMissing: (root, model) => store.vectors.countMissing(root, model),
            missing: (root, model, limit, after) => store.vectors.missing(root, model, limit, after),
            prepare: (v) => store.vectors.prepare(v),
            nearest: (...args) => store.vectors.nearest(...args),
            prune: () => store.vectors.prune(),
            put: async (model, rows) => {
              await pause(writeMs[writes++ % writeMs.length]!);
              return store.vectors.put(model, rows);
            },
          },
        };
        const sent: string[] = [];
        const target = {
          space,
          embedTexts: async (texts: string[]) => {
            sent.push(...texts);
            await pause(callMs[calls++ % callMs.length]!);
            return texts.map((t) => [t.length, 1, (t.charCodeAt(t.length - 1) % 5) - 2, 0.5]);
          },
        };
        const done = await embedMissing(target, slow, dir, { parallel });
        expect(new Set(sent).size).toBe(sent.length);
        expect(done).toBe(sent.length);
        expect(await store.vectors.countMissing(dir, space)).toBe(0);
      },
    ),
    { numRuns: 12 },
  );
});
