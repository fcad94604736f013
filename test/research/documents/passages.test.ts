import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import {
  documentSource,
  getDocument,
  PASSAGE_CHARS,
  refreshIndex,
  searchPassages,
  splitPassages,
} from '../../../src/research/documents/index.js';
import { loadMigrations, migrate } from '../../../src/store/sqlite/migrations.js';
import { SqliteStore } from '../../../src/store/sqlite/store.js';
import { sqliteStoreNow } from '../../support/stores.js';

/** Deterministic filler prose that shares no word with the facts the tests look for. */
function filler(seed: number, sentences: number): string {
  const words =
    'quarterly review team process inventory warehouse schedule vendor ledger audit badge desk printer locker shuttle canteen roster archive courier signage pallet forklift'.split(
      ' ',
    );
  let s = seed;
  const next = () => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return words[s % words.length]!;
  };
  return Array.from(
    { length: sentences },
    () => `The ${next()} ${next()} covers the ${next()} and the ${next()} for each ${next()}.`,
  ).join(' ');
}

/** A handbook of about 90,000 characters whose London hotel limit sits past character 50,000. */
function longHandbook(): string {
  const parts = ['# Staff Handbook\n'];
  for (let chapter = 1; chapter <= 12; chapter++) {
    parts.push(`## Chapter ${chapter}\n`);
    for (let section = 1; section <= 4; section++) {
      parts.push(`### Part ${chapter}.${section}\n`);
      for (let p = 0; p < 3; p++) parts.push(`${filler(chapter * 100 + section * 10 + p, 8)}\n`);
      if (chapter === 9 && section === 2)
        parts.push(
          '## Travel Policy\n\n### Hotels\n\n#### London\n',
          'The nightly hotel limit in London is $300, taxes included.\n',
          `## Chapter ${chapter} continued\n`,
        );
    }
  }
  return parts.join('\n');
}

function folder(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'agent-passages-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

describe('splitting a document into passages', () => {
  it('follows the headings, keeps each heading path, and slices the body exactly', async () => {
    const body =
      'Intro line before any heading.\n\n# Travel Policy\n\n## Hotels\n\nBook through the portal.\n\n### London\n\nThe limit is $300.\n\n```sh\n# not a heading\necho hi\n```\n\n## Meals\n\nUp to $75 a day.\n';
    const passages = splitPassages(body);
    expect(passages.map((p) => [p.ordinal, p.headingPath])).toEqual([
      [0, ''],
      [1, 'Travel Policy > Hotels'],
      [2, 'Travel Policy > Hotels > London'],
      [3, 'Travel Policy > Meals'],
    ]);
    for (const p of passages) expect(body.slice(p.start, p.end)).toBe(p.text);
    expect(passages[2]!.text).toBe('The limit is $300.\n\n```sh\n# not a heading\necho hi\n```');
    // A section that holds only its heading has no passage of its own.
    expect(passages.some((p) => p.headingPath === 'Travel Policy')).toBe(false);
  });

  it('reads underlined headings and starts a passage at each PDF page marker', async () => {
    const passages = splitPassages(
      'Annual Report\n=============\n\n[Page 1]\nRevenue grew.\n\n[Page 2]\nCosts fell.\n\nOutlook\n-------\nSteady.',
    );
    expect(passages.map((p) => [p.headingPath, p.text])).toEqual([
      ['Annual Report > Page 1', 'Revenue grew.'],
      ['Annual Report > Page 2', 'Costs fell.'],
      ['Annual Report > Outlook > Page 2', 'Steady.'],
    ]);
  });

  it('cuts a long section at paragraphs, then sentences, to the size bound', async () => {
    const paragraphs = Array.from({ length: 12 }, (_, i) => filler(i + 1, 6)).join('\n\n');
    const long = filler(99, 80); // one paragraph of about 5,000 characters
    const body = `# A\n\n${paragraphs}\n\n## B\n\n${long}`;
    const passages = splitPassages(body);
    for (const p of passages) {
      expect(p.text.length).toBeLessThanOrEqual(PASSAGE_CHARS);
      expect(p.text).toMatch(/\.$/); // never mid-sentence
      expect(body.slice(p.start, p.end)).toBe(p.text);
    }
    const inA = passages.filter((p) => p.headingPath === 'A');
    expect(inA.length).toBeGreaterThan(1);
    // Paragraph boundaries come first: every passage of A ends where a paragraph ends.
    for (const p of inA) expect(['\n\n', '']).toContain(body.slice(p.end, p.end + 2));
    expect(passages.filter((p) => p.headingPath === 'A > B').length).toBeGreaterThanOrEqual(4);
    // Everything but blank space is in some passage, once.
    expect(
      passages
        .map((p) => p.text)
        .join('')
        .replace(/\s/g, ''),
    ).toBe(body.replace(/^#.*$/gm, '').replace(/\s/g, ''));
  });

  it('never cuts inside a table row, even one longer than the bound', async () => {
    const rows = Array.from({ length: 60 }, (_, i) => `| Row ${i} | ${'cell '.repeat(8)}| $${i * 100} |`);
    const wide = `| Wide | ${'x'.repeat(PASSAGE_CHARS + 200)} |`;
    const body = `# Rates\n\n| Name | Notes | Amount |\n| --- | --- | --- |\n${rows.join('\n')}\n${wide}\n`;
    const passages = splitPassages(body);
    expect(passages.length).toBeGreaterThan(2);
    for (const p of passages) for (const line of p.text.split('\n')) expect(line).toMatch(/^\|.*\|$/);
    expect(passages.some((p) => p.text.includes(wide))).toBe(true);
  });
});

describe('the passage index', () => {
  it('is written with its document, and an edited or removed file leaves no old passage behind', async () => {
    const dir = folder({
      'travel.md': '# Travel\n\n## Hotels\n\nThe limit is $300 in Zurich.\n',
      'meals.md': '# Meals\n\nBreakfast is included in the hotel rate.\n',
    });
    const store = sqliteStoreNow(':memory:');
    const db = store.db;
    await refreshIndex(store, dir);
    expect((await searchPassages(store, dir, 'Zurich')).map((h) => [h.slug, h.headingPath])).toEqual([
      ['travel', 'Travel > Hotels'],
    ]);

    writeFileSync(
      join(dir, 'travel.md'),
      '# Travel\n\n## Trains\n\nFirst class above four hours in Geneva.\n',
    );
    utimesSync(join(dir, 'travel.md'), new Date(), new Date(Date.now() + 5000));
    rmSync(join(dir, 'meals.md'));
    expect(await refreshIndex(store, dir)).toMatchObject({ updated: 1, removed: 1 });
    expect(await searchPassages(store, dir, 'Zurich')).toEqual([]);
    expect(await searchPassages(store, dir, 'breakfast')).toEqual([]);
    expect((await searchPassages(store, dir, 'Geneva')).map((h) => h.headingPath)).toEqual([
      'Travel > Trains',
    ]);
    expect(db.prepare('SELECT count(*) FROM passage_spans').pluck().get()).toBe(1);
    // The full-text index holds exactly the passages there are: no row of a deleted passage remains.
    expect(
      db
        .prepare("SELECT count(*) FROM passages_fts WHERE passages_fts MATCH 'zurich OR breakfast'")
        .pluck()
        .get(),
    ).toBe(0);
    db.exec("INSERT INTO passages_fts(passages_fts) VALUES ('integrity-check')");
  });

  it('searches only the passages of the folder asked about, when one database indexes several', async () => {
    const mine = folder({ 'travel.md': '# Travel\n\nTaxis to the airport are fine after 22:00.\n' });
    const other = folder({
      'a.md': '# Airport\n\nAirport taxis, airport parking and the airport hotel: airport rules.\n',
      'b.md': '# Airport taxis\n\nAirport taxis need a receipt for every airport trip.\n',
    });
    const store = sqliteStoreNow(':memory:');
    await refreshIndex(store, mine);
    await refreshIndex(store, other);
    expect((await searchPassages(store, mine, 'airport taxis', 1)).map((h) => h.path)).toEqual([
      join(mine, 'travel.md'),
    ]);
    expect(await searchPassages(store, other, 'airport taxis', 5)).toHaveLength(2);
  });

  it('is filled for documents indexed before passages existed', async () => {
    const dir = folder({ 'travel.md': '# Travel\n\nThe limit is $300 in Zurich.\n' });
    const db = new Database(':memory:');
    const store = new SqliteStore(db, 'tester');
    const steps = loadMigrations();
    migrate(
      db,
      steps.filter((s) => s.name < '004'),
    );
    // What agent 0.0.1 wrote: the document, no passages.
    db.prepare(
      "INSERT INTO documents (root, slug, path, title, body, mtime_ms, size) VALUES (?, 'travel', ?, 'Travel', '# Travel\n\nThe limit is $300 in Zurich.\n', ?, ?)",
    ).run(dir, join(dir, 'travel.md'), 0, 0);
    migrate(db, steps);
    expect(db.prepare('SELECT title FROM documents').pluck().get()).toBe('Travel');
    expect(await refreshIndex(store, dir)).toMatchObject({ updated: 1, unchanged: 0 });
    expect((await searchPassages(store, dir, 'Zurich')).map((h) => h.slug)).toEqual(['travel']);
  });
});

describe('a document as a source', () => {
  const question = 'What is the nightly hotel limit in London?';

  it('sends a document that fits the budget whole', async () => {
    const body = '# Travel\n\nThe nightly hotel limit in London is $300.\n';
    const dir = folder({ 'travel.md': body });
    const store = sqliteStoreNow(':memory:');
    await refreshIndex(store, dir);
    expect(await documentSource(store, dir, 'travel', [question], 24_000)).toEqual({
      text: body,
      excerpted: false,
      title: 'Travel',
      path: join(dir, 'travel.md'),
    });
    expect(await documentSource(store, dir, 'nothing-here', [question], 24_000)).toBeUndefined();
  });

  it('sends the passages of a long document that answer the question, under their headings, in document order', async () => {
    const body = longHandbook();
    expect(body.indexOf('London is $300')).toBeGreaterThan(50_000);
    const dir = folder({ 'handbook.md': body });
    const store = sqliteStoreNow(':memory:');
    await refreshIndex(store, dir);
    const source = (await documentSource(store, dir, 'handbook', [question, 'team roster'], 24_000))!;
    expect(source.excerpted).toBe(true);
    expect(source.text.length).toBeLessThanOrEqual(24_000);
    expect(source.text).toContain(
      '## Staff Handbook > Travel Policy > Hotels > London\n\nThe nightly hotel limit in London is $300, taxes included.',
    );
    // Gaps are marked on their own line, and the excerpt does not start at the document's start.
    expect(source.text.startsWith('[…]\n\n## ')).toBe(true);
    expect(source.text).toMatch(/\n\n\[…\]\n\n## /);
    // Document order: each passage's text appears in the body after the one before it.
    const pieces = source.text.split('\n\n').filter((piece) => piece !== '[…]' && !piece.startsWith('## '));
    let at = -1;
    for (const piece of pieces) {
      const next = body.indexOf(piece, at + 1);
      expect(next).toBeGreaterThan(at);
      at = next;
    }
    // The search ("team roster") brings passages of its own besides the question's.
    expect(source.text).toMatch(/team roster|roster .*team/);
  });

  it('keeps to a small budget, and starts at the beginning when nothing matches', async () => {
    const dir = folder({ 'handbook.md': longHandbook() });
    const store = sqliteStoreNow(':memory:');
    await refreshIndex(store, dir);
    const small = (await documentSource(store, dir, 'handbook', [question], 2_000))!;
    expect(small.text.length).toBeLessThanOrEqual(2_000);
    expect(small.text).toContain('London is $300');
    const none = (await documentSource(store, dir, 'handbook', ['zebra migration'], 3_000))!;
    expect(none.text.startsWith('## Staff Handbook > Chapter 1 > Part 1.1\n\nThe ')).toBe(true);
    expect(none.text.endsWith('\n\n[…]')).toBe(true);
    expect((await getDocument(store, dir, 'handbook'))!.body.length).toBeGreaterThan(80_000);
  });
});
