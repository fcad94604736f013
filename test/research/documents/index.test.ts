import { mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { AbortedError } from '../../../src/errors.js';
import { checkCitations } from '../../../src/research/checks/citations.js';
import { contentDirectory } from '../../../src/research/content-folder.js';
import { listDocuments, refreshIndex, searchDocuments } from '../../../src/research/documents/index.js';
import { coversAmount } from '../../../src/research/extractive/index.js';
import { markdownSentences } from '../../../src/research/text.js';
import { sqliteStoreNow } from '../../support/stores.js';

it('indexes every Markdown and text file, refreshes changed ones, forgets removed ones', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-docs-'));
  writeFileSync(join(dir, 'a.md'), '# Alpha Handbook\n\nAlpacas graze in the north field.');
  writeFileSync(join(dir, 'b.txt'), 'Beta notes\nBeavers build dams.');
  writeFileSync(join(dir, 'ignored.csv'), 'a,b\n1,2'); // not a document format: not even reported
  const store = sqliteStoreNow(':memory:');
  expect(await refreshIndex(store, dir)).toEqual({
    added: 2,
    updated: 0,
    removed: 0,
    unchanged: 0,
    skipped: [],
  });
  expect((await listDocuments(store, dir)).map((d) => [d.slug, d.title])).toEqual([
    ['a', 'Alpha Handbook'],
    ['b', 'Beta notes'],
  ]);
  expect((await searchDocuments(store, dir, 'Where do alpacas graze?')).map((h) => h.slug)).toEqual(['a']);

  writeFileSync(
    join(dir, 'a.md'),
    '# Alpha Handbook\n\nAlpacas now graze in the south field, near the river.',
  );
  utimesSync(join(dir, 'a.md'), new Date(), new Date(Date.now() + 5000));
  rmSync(join(dir, 'b.txt'));
  expect(await refreshIndex(store, dir)).toEqual({
    added: 0,
    updated: 1,
    removed: 1,
    unchanged: 0,
    skipped: [],
  });
  expect((await searchDocuments(store, dir, 'river')).map((h) => h.slug)).toEqual(['a']);
  expect(await searchDocuments(store, dir, 'beavers')).toEqual([]);
  expect(await refreshIndex(store, dir)).toEqual({
    added: 0,
    updated: 0,
    removed: 0,
    unchanged: 1,
    skipped: [],
  });
});

it('follows links to files and folders, reads each real folder once, and ignores hidden and lock files', async () => {
  const outside = mkdtempSync(join(tmpdir(), 'agent-outside-'));
  mkdirSync(join(outside, 'shared'));
  writeFileSync(join(outside, 'shared', 'guide.md'), '# Guide\n\nShared guidance.');
  writeFileSync(join(outside, 'note.md'), '# Note\n\nA linked note.');
  const dir = mkdtempSync(join(tmpdir(), 'agent-docs-'));
  writeFileSync(join(dir, 'own.md'), '# Own\n\nOur own document.');
  writeFileSync(join(dir, '.draft.md'), '# Draft');
  writeFileSync(join(dir, '~$report.docx'), 'lock');
  symlinkSync(join(outside, 'shared'), join(dir, 'shared'));
  symlinkSync(join(outside, 'shared'), join(dir, 'team'));
  symlinkSync(join(outside, 'note.md'), join(dir, 'note.md'));
  const store = sqliteStoreNow(':memory:');
  const stats = await refreshIndex(store, dir);
  expect((await listDocuments(store, dir)).map((d) => [d.slug, d.path])).toEqual([
    ['note', join(dir, 'note.md')],
    ['own', join(dir, 'own.md')],
    ['shared/guide', join(dir, 'shared', 'guide.md')],
  ]);
  expect(stats.skipped).toEqual([
    { path: 'team', reason: 'a second link to a folder already indexed as shared' },
  ]);
});

it('stops at Ctrl-C between files, writing nothing half-read', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-docs-'));
  writeFileSync(join(dir, 'a.md'), '# A\n\nAlpacas graze.');
  const store = sqliteStoreNow(':memory:');
  const controller = new AbortController();
  controller.abort();
  await expect(refreshIndex(store, dir, { signal: controller.signal })).rejects.toThrow(AbortedError);
  expect(await listDocuments(store, dir)).toEqual([]);
  expect((await refreshIndex(store, dir)).added).toBe(1);
});

it('refuses a content folder that does not exist', async () => {
  expect(() => contentDirectory('/no/such/folder')).toThrow(
    /^The content folder \/no\/such\/folder does not exist\./,
  );
});

it('splits Markdown into sentences, tables into rows', async () => {
  expect(
    markdownSentences(
      '# T\n\n| Amount | Who |\n| --- | --- |\n| Up to $500 | Your manager |\n\n- **Bold** item. Second one.\n',
    ),
  ).toEqual(['Amount — Who.', 'Up to $500 — Your manager.', 'Bold item.', 'Second one.']);
  expect(coversAmount('$5,000 to $50,000 — department head', 20_000)).toBe(true);
  expect(coversAmount('Up to $500 — Your manager', 20_000)).toBe(false);
});

it('checks citations: dangling numbers and uncited statements', async () => {
  const check = checkCitations(
    'Refunds up to $200 need no approval [1]. Trains are preferred [2, 3].\n\n- The limit rose in 2025.\n- Summary:\nIt is what the policy says and nothing more.',
    [1, 2],
  );
  expect(check).toEqual({
    cited: [1, 2, 3],
    dangling: [3],
    uncited: ['- The limit rose in 2025.', 'It is what the policy says and nothing more.'],
  });
});
