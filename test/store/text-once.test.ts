import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { documentPassages } from '../../src/research/documents/search.js';
import { refreshIndex, searchPassages } from '../../src/research/documents.js';
import { openStore } from '../../src/store/open.js';

// Migration 009 stores a document's text once: a passage is a span of the body, in code points as
// SQLite counts them. Characters beyond the Basic Multilingual Plane count once there, twice in JavaScript.

it('passages come back exactly, after emoji and other astral characters', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-astral-'));
  const sections = Array.from(
    { length: 8 },
    (_, i) => `## Part ${i} 😀𝒜\n\n${`Rule ${i} 🚀 applies to 𝔘nicode team ${i}. `.repeat(60)}`,
  );
  writeFileSync(join(dir, 'astral.md'), `# Astral 🌍\n\n${sections.join('\n\n')}\n`);
  const db = openStore(':memory:');
  await refreshIndex(db, dir);
  const id = db.prepare('SELECT id FROM documents').pluck().get() as number;
  const body = db.prepare('SELECT body FROM documents').pluck().get() as string;
  const passages = documentPassages(db, id, body);
  expect(passages.length).toBeGreaterThan(8);
  const viewed = db.prepare('SELECT text FROM passages ORDER BY ordinal').pluck().all();
  expect(viewed).toEqual(passages.map((p) => p.text));
  for (const p of passages) expect(body).toContain(p.text);
  expect(passages.at(-1)!.text).toMatch(/team 7\.$/);

  const hit = searchPassages(db, dir, 'rule 5 team', 1)[0]!;
  expect(hit.text).toContain('Rule 5 🚀 applies to 𝔘nicode team 5.');
  // Nothing but the body holds the text.
  expect(
    db.prepare("SELECT count(*) FROM pragma_table_info('passage_spans') WHERE name = 'text'").pluck().get(),
  ).toBe(0);
  db.close();
});
