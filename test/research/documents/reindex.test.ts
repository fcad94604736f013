import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { listDocuments, refreshIndex } from '../../../src/research/documents/index.js';
import { makePdf } from '../../support/make-pdf.js';
import { sqliteStoreNow } from '../../support/stores.js';

it('reads every document again once when the index was written by an older extractor', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-reindex-'));
  writeFileSync(
    join(dir, 'manual.pdf'),
    makePdf({ pages: [['# run as root', 'Backups run nightly.']], outline: [{ title: 'Backups', page: 1 }] }),
  );
  writeFileSync(join(dir, 'notes.md'), '# Notes\n\nPlain notes.');
  const store = sqliteStoreNow(':memory:');
  const db = store.db;
  expect((await refreshIndex(store, dir)).added).toBe(2);
  expect((await listDocuments(store, dir)).map((d) => d.title)).toEqual(['Backups', 'Notes']);

  // As an older version left it: its own version, and the title it took from a code comment.
  db.prepare("UPDATE index_meta SET value = '1' WHERE key = 'extractor_version'").run();
  db.prepare("UPDATE documents SET title = 'run as root' WHERE slug = 'manual'").run();
  const again = await refreshIndex(store, dir);
  expect([again.updated, again.unchanged]).toEqual([2, 0]);
  expect((await listDocuments(store, dir)).map((d) => d.title)).toEqual(['Backups', 'Notes']);
  // Once only.
  expect((await refreshIndex(store, dir)).unchanged).toBe(2);
});
