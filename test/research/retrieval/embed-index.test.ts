import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { refreshIndex } from '../../../src/research/documents/index.js';
import { embedMissing } from '../../../src/research/retrieval/embed-index.js';
import type { Store } from '../../../src/store/store.js';
import { sqliteStore } from '../../support/stores.js';

// Embedding a folder reads the next round of passages while the last round's calls are out: a text
// read in both (one disclaimer in the first document and the last) must still be embedded once.

const dirs: string[] = [];
let store: Store | undefined;
afterEach(async () => {
  await store?.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

it('embeds every passage of a folder of several rounds, and a text found in two rounds once', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-embed-rounds-'));
  dirs.push(dir);
  const notice = '# Notice\n\n## Disclaimer\n\nNothing here is legal advice; ask the legal team.\n';
  writeFileSync(join(dir, 'aaa.md'), notice);
  writeFileSync(join(dir, 'zzz.md'), notice);
  // 1,100 passages between them: more than one round at one call in flight (1,024).
  for (let d = 0; d < 110; d++) {
    const sections = Array.from({ length: 10 }, (_, s) => `## Part ${s}\n\nFiller ${d}-${s} says little.\n`);
    writeFileSync(join(dir, `m-${String(d).padStart(3, '0')}.md`), `# Doc ${d}\n\n${sections.join('\n')}`);
  }
  store = await sqliteStore();
  await refreshIndex(store, dir);
  const sent: string[] = [];
  const target = {
    space: 'test:model@4',
    embedTexts: async (texts: string[]) => {
      sent.push(...texts);
      await new Promise((r) => setTimeout(r, 1));
      return texts.map((t) => [t.length, 1, (t.charCodeAt(0) % 7) - 3, 0.5]);
    },
  };
  const done = await embedMissing(target, store, dir, { parallel: 1 });
  expect(sent.filter((t) => t.includes('legal advice'))).toHaveLength(1);
  expect(new Set(sent).size).toBe(sent.length);
  expect(done).toBe(sent.length);
  expect(await store.vectors.countMissing(dir, target.space)).toBe(0);
  expect(sent.length).toBeGreaterThan(1024);
});
