import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect, it } from 'vitest';
import {
  getDocument,
  refreshIndex,
  searchDocuments,
  searchPassages,
} from '../../src/research/documents/index.js';
import { loadMigrations, migrate } from '../../src/store/sqlite/migrations.js';
import { tempDb } from '../support/cli.js';
import { sqliteStore } from '../support/stores.js';

// Migration 011 moves the document index's text into compressed blocks. An index written before it (the
// text plain in documents.body, passage offsets in code points) is upgraded in place: its documents keep
// their titles and places and are read again by the next run, which finds them as updated.

const TEXT = '# Travel\n\n## Hotels\n\nThe nightly limit is $300 in Zurich.\n';

it('upgrades an index written before 011: documents read again, the plain text gone', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-011-'));
  writeFileSync(join(dir, 'travel.md'), TEXT);
  const path = tempDb();
  const old = new Database(path);
  const steps = loadMigrations();
  migrate(
    old,
    steps.filter((s) => s.name < '011'),
  );
  // What agent wrote with migration 010: the body, its spans and their full-text rows.
  const id = old
    .prepare(
      "INSERT INTO documents (root, slug, path, title, body, mtime_ms, size) VALUES (?, 'travel', ?, 'Travel', ?, 1, ?) RETURNING id",
    )
    .pluck()
    .get(dir, join(dir, 'travel.md'), TEXT, TEXT.length) as number;
  old
    .prepare(
      "INSERT INTO passage_spans (id, document_id, ordinal, heading_path, start_offset, end_offset) VALUES (1, ?, 0, 'Travel > Hotels', 20, 57)",
    )
    .run(id);
  old
    .prepare("INSERT INTO passages_fts (rowid, text, heading_path) VALUES (1, ?, 'Travel > Hotels')")
    .run(TEXT.slice(20, 57));
  old.prepare('INSERT INTO indexed_roots (root, walked_at) VALUES (?, ?)').run(dir, Date.now() + 60_000);
  old.close();

  const store = await sqliteStore(path);
  const db = store.db;
  const columns = db.prepare("SELECT name FROM pragma_table_info('documents')").pluck().all();
  expect(columns).not.toContain('body');
  expect(db.prepare('SELECT title FROM documents').pluck().get()).toBe('Travel');
  expect(await searchPassages(store, dir, 'Zurich')).toEqual([]);
  // The folder counts as never walked, so even a run that asked before the upgrade reads it again.
  expect(await refreshIndex(store, dir)).toMatchObject({ added: 0, updated: 1, unchanged: 0 });
  expect((await getDocument(store, dir, 'travel'))?.body).toBe(TEXT);
  expect((await searchPassages(store, dir, 'Zurich')).map((h) => [h.headingPath, h.text])).toEqual([
    ['Travel > Hotels', 'The nightly limit is $300 in Zurich.'],
  ]);
  expect((await searchDocuments(store, dir, 'Zurich')).map((h) => h.slug)).toEqual(['travel']);
  db.exec("INSERT INTO passages_fts(passages_fts) VALUES ('integrity-check')");
  await store.close();
});

it('removes a document with its blocks and passages on any connection', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-011-'));
  writeFileSync(join(dir, 'travel.md'), TEXT);
  const path = tempDb();
  const store = await sqliteStore(path);
  await refreshIndex(store, dir);
  await store.close();
  // A connection without PRAGMA foreign_keys: the trigger still cleans up.
  const bare = new Database(path);
  bare.prepare('DELETE FROM documents').run();
  expect(bare.prepare('SELECT count(*) FROM document_blocks').pluck().get()).toBe(0);
  expect(bare.prepare('SELECT count(*) FROM passage_spans').pluck().get()).toBe(0);
  bare.close();
});
