import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { refreshIndex } from '../../../src/research/documents/index.js';
import { extractiveAnswer } from '../../../src/research/extractive/index.js';
import { sqliteStoreNow } from '../../support/stores.js';

/** Long filler prose with none of the question's words. */
function chapter(n: number): string {
  const words = 'rota badge locker canteen courier pallet shuttle archive roster ledger'.split(' ');
  const sentences = Array.from(
    { length: 60 },
    (_, i) =>
      `The ${words[(n + i) % 10]} ${words[(n * 3 + i) % 10]} rule applies to the ${words[(n + 2 * i) % 10]} team.`,
  );
  return `## Chapter ${n}\n\n${sentences.slice(0, 30).join(' ')}\n\n${sentences.slice(30).join(' ')}\n`;
}

it('finds a fact deep in a long document that a whole-document search ranks below short ones', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-extractive-'));
  const chapters = Array.from({ length: 40 }, (_, i) => chapter(i + 1));
  chapters.splice(
    30,
    0,
    '## Travel\n\n### Hotels\n\nThe nightly hotel limit in London is $300, taxes included.\n',
  );
  const handbook = `# Staff Handbook\n\n${chapters.join('\n')}`;
  expect(handbook.indexOf('London is $300')).toBeGreaterThan(50_000);
  writeFileSync(join(dir, 'handbook.md'), handbook);
  // Short documents that share the question's words but not its answer.
  const short: Record<string, string> = {
    dinners:
      '# Client Dinners\n\nClient dinners in London need an itemised receipt; there is no nightly limit on guests.',
    loyalty:
      '# Loyalty Points\n\nHotel loyalty points belong to the employee, whatever the hotel or the limit.',
    offices: '# Offices\n\nThe London office opens at 8:00; the hotel next door hosts the annual party.',
    events:
      '# Events\n\nThe London summit has a nightly social; the hotel ballroom limit is set by the venue.',
    parking: '# Parking\n\nThe nightly parking limit at the London office is two hours after close.',
  };
  for (const [name, text] of Object.entries(short)) writeFileSync(join(dir, `${name}.md`), text);
  const store = sqliteStoreNow(':memory:');
  await refreshIndex(store, dir);
  const question = 'What is the nightly hotel limit in London?';
  const { answer, sources } = await extractiveAnswer(store, dir, question);
  const lines = answer.split('\n');
  expect(lines[0]).toBe('- The nightly hotel limit in London is $300, taxes included. [1]');
  expect(sources[0]).toMatchObject({ n: 1, slug: 'handbook', title: 'Staff Handbook', kind: 'document' });
  // Every line keeps the format, and sources are numbered in the order the answer first cites them.
  for (const line of lines) expect(line).toMatch(/^- .+ \[\d\]$/);
  const firstCited = [...new Set(lines.map((l) => Number(/\[(\d)\]$/.exec(l)![1])))];
  expect(firstCited).toEqual(sources.map((s) => s.n));
});

it('answers nothing when no passage shares a word with the question', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-extractive-'));
  writeFileSync(join(dir, 'a.md'), '# Alpha\n\nAlpacas graze in the north field.');
  const store = sqliteStoreNow(':memory:');
  await refreshIndex(store, dir);
  expect(await extractiveAnswer(store, dir, 'zebra migration patterns')).toEqual({ answer: '', sources: [] });
});
