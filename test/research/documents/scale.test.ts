import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { AbortedError } from '../../../src/errors.js';
import {
  getDocument,
  listDocuments,
  refreshIndex,
  searchDocuments,
  searchPassages,
} from '../../../src/research/documents/index.js';
import { sqliteStoreNow } from '../../support/stores.js';

// A folder with megabytes to read is read by worker threads beside the writes (documents/readers.ts):
// what is indexed, and what is skipped and why, must be exactly what reading in one thread gives.

function bigFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'agent-big-'));
  for (let i = 0; i < 24; i++) {
    const sections = Array.from(
      { length: 120 },
      (_, s) =>
        `## Section ${s}\n\n${`Handbook ${i} clause ${s} sets the limit at $${i * 1000 + s}. `.repeat(24)}`,
    );
    writeFileSync(join(dir, `handbook-${i}.md`), `# Handbook ${i}\n\n${sections.join('\n\n')}\n`);
  }
  writeFileSync(join(dir, 'empty.md'), '');
  writeFileSync(join(dir, 'binary.txt'), Buffer.from([0x50, 0x4b, 0x03, 0x04, 0, 0, 0x14, 0]));
  return dir;
}

it('indexes megabytes of files in worker threads, every text stored whole and searchable', async () => {
  const dir = bigFolder();
  const store = sqliteStoreNow(':memory:');
  const stats = await refreshIndex(store, dir);
  expect(stats).toMatchObject({ added: 24, updated: 0, removed: 0, unchanged: 0 });
  expect(stats.skipped).toEqual([
    { path: 'binary.txt', reason: 'binary content, not text (it has NUL bytes)' },
    { path: 'empty.md', reason: 'empty file (0 bytes)' },
  ]);
  expect(await listDocuments(store, dir)).toHaveLength(24);
  for (const i of [0, 11, 23])
    expect((await getDocument(store, dir, `handbook-${i}`))?.body).toBe(
      readFileSync(join(dir, `handbook-${i}.md`), 'utf8'),
    );
  const [hit] = await searchPassages(store, dir, 'limit $17042', 1);
  expect(hit).toMatchObject({ slug: 'handbook-17', headingPath: 'Handbook 17 > Section 42' });
  expect(hit!.text).toMatch(/^Handbook 17 clause 42 sets the limit at \$17042\./);
  expect((await searchDocuments(store, dir, 'handbook 5', 1)).map((h) => h.slug)).toEqual(['handbook-5']);
  expect(await refreshIndex(store, dir)).toMatchObject({ added: 0, unchanged: 24 });
  await store.close();
});

it('stops reading when asked, and the next run indexes everything', async () => {
  const dir = bigFolder();
  const store = sqliteStoreNow(':memory:');
  const controller = new AbortController();
  controller.abort();
  await expect(refreshIndex(store, dir, { signal: controller.signal })).rejects.toBeInstanceOf(AbortedError);
  expect(await refreshIndex(store, dir)).toMatchObject({ added: 24 });
  await store.close();
});
