import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { checkCitations } from '../../src/research/citations.js';
import {
  contentDirectory,
  listDocuments,
  refreshIndex,
  searchDocuments,
} from '../../src/research/documents.js';
import { coversAmount } from '../../src/research/extractive.js';
import { markdownSentences } from '../../src/research/text.js';
import { openStore } from '../../src/store/open.js';

it('indexes every Markdown and text file, refreshes changed ones, forgets removed ones', () => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-docs-'));
  writeFileSync(join(dir, 'a.md'), '# Alpha Handbook\n\nAlpacas graze in the north field.');
  writeFileSync(join(dir, 'b.txt'), 'Beta notes\nBeavers build dams.');
  writeFileSync(join(dir, 'ignored.pdf'), 'binary');
  const db = openStore(':memory:');
  expect(refreshIndex(db, dir)).toEqual({ added: 2, updated: 0, removed: 0, unchanged: 0 });
  expect(listDocuments(db, dir).map((d) => [d.slug, d.title])).toEqual([
    ['a', 'Alpha Handbook'],
    ['b', 'Beta notes'],
  ]);
  expect(searchDocuments(db, dir, 'Where do alpacas graze?').map((h) => h.slug)).toEqual(['a']);

  writeFileSync(
    join(dir, 'a.md'),
    '# Alpha Handbook\n\nAlpacas now graze in the south field, near the river.',
  );
  utimesSync(join(dir, 'a.md'), new Date(), new Date(Date.now() + 5000));
  rmSync(join(dir, 'b.txt'));
  expect(refreshIndex(db, dir)).toEqual({ added: 0, updated: 1, removed: 1, unchanged: 0 });
  expect(searchDocuments(db, dir, 'river').map((h) => h.slug)).toEqual(['a']);
  expect(searchDocuments(db, dir, 'beavers')).toEqual([]);
  expect(refreshIndex(db, dir)).toEqual({ added: 0, updated: 0, removed: 0, unchanged: 1 });
});

it('refuses a content folder that does not exist', () => {
  expect(() => contentDirectory('/no/such/folder')).toThrow(/does not exist or is not a folder/);
});

it('splits Markdown into sentences, tables into rows', () => {
  expect(
    markdownSentences(
      '# T\n\n| Amount | Who |\n| --- | --- |\n| Up to $500 | Your manager |\n\n- **Bold** item. Second one.\n',
    ),
  ).toEqual(['Amount — Who.', 'Up to $500 — Your manager.', 'Bold item.', 'Second one.']);
  expect(coversAmount('$5,000 to $50,000 — department head', 20_000)).toBe(true);
  expect(coversAmount('Up to $500 — Your manager', 20_000)).toBe(false);
});

it('checks citations: dangling numbers and uncited statements', () => {
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
