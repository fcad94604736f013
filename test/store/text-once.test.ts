import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { getDocument, refreshIndex, searchPassages } from '../../src/research/documents/index.js';
import { sqliteStore } from '../support/stores.js';

// Each document's text is stored once, compressed, in blocks cut at passage starts (migration 011); a
// passage is a span of it. Characters beyond the Basic Multilingual Plane must come back whole.

it('passages come back exactly, after emoji and other astral characters', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-astral-'));
  const sections = Array.from(
    { length: 8 },
    (_, i) => `## Part ${i} 😀𝒜\n\n${`Rule ${i} 🚀 applies to 𝔘nicode team ${i}. `.repeat(60)}`,
  );
  const text = `# Astral 🌍\n\n${sections.join('\n\n')}\n`;
  writeFileSync(join(dir, 'astral.md'), text);
  const store = await sqliteStore(':memory:');
  const db = store.db;
  await refreshIndex(store, dir);
  const id = db.prepare('SELECT id FROM documents').pluck().get() as number;
  const body = (await getDocument(store, dir, 'astral'))!.body;
  expect(body).toBe(text);
  const passages = (await store.index.passageSpans(id)).map((p) => ({
    ...p,
    text: body.slice(p.start, p.end),
  }));
  expect(passages.length).toBeGreaterThan(8);
  for (const p of passages) expect(body).toContain(p.text);
  expect(passages.at(-1)!.text).toMatch(/team 7\.$/);

  const hit = (await searchPassages(store, dir, 'rule 5 team', 1))[0]!;
  expect(hit.text).toContain('Rule 5 🚀 applies to 𝔘nicode team 5.');
  expect(passages.map((p) => p.text)).toContain(hit.text);
  await store.close();
});

it('keeps a long document in several compressed blocks, each passage found in its own', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-blocks-'));
  const sections = Array.from(
    { length: 60 },
    (_, i) => `## Section ${i}\n\n${`Clause ${i} covers the marker${i} case in full. `.repeat(30)}`,
  );
  const text = `# Handbook\n\n${sections.join('\n\n')}\n`;
  writeFileSync(join(dir, 'handbook.md'), text);
  const store = await sqliteStore(':memory:');
  const db = store.db;
  await refreshIndex(store, dir);
  const blocks = db
    .prepare('SELECT start_offset AS start, length(data) AS bytes FROM document_blocks')
    .all() as {
    start: number;
    bytes: number;
  }[];
  expect(blocks.length).toBeGreaterThan(3);
  expect(blocks[0]!.start).toBe(0);
  // Stored compressed: far smaller than the text, which no column holds in the clear.
  expect(blocks.reduce((n, b) => n + b.bytes, 0)).toBeLessThan(text.length / 4);
  expect(
    db.prepare("SELECT count(*) FROM pragma_table_info('documents') WHERE name = 'body'").pluck().get(),
  ).toBe(0);
  expect((await getDocument(store, dir, 'handbook'))!.body).toBe(text);
  // A span across several blocks comes back whole.
  const id = db.prepare('SELECT id FROM documents').pluck().get() as number;
  expect(await store.index.spanReader()(id, 100, 60_000)).toBe(text.slice(100, 60_000));
  // A passage in the last block, one in the first, and one after a block boundary.
  for (const i of [0, 31, 59]) {
    const [hit] = await searchPassages(store, dir, `marker${i}`, 1);
    expect(hit).toMatchObject({ headingPath: `Handbook > Section ${i}` });
    expect(hit!.text).toBe(`Clause ${i} covers the marker${i} case in full. `.repeat(30).trim());
  }
  await store.close();
});
