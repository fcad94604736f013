import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { AbortedError } from '../../../src/errors.js';
import { refreshIndex } from '../../../src/research/documents/index.js';
import { embedMissing } from '../../../src/research/retrieval/embed-index.js';
import type { FolderIO } from '../../../src/research/retrieval/folder-io.js';
import { folderThread } from '../../../src/research/retrieval/folder-thread.js';
import type { SqliteStore } from '../../../src/store/sqlite/store.js';
import { emptyUsage } from '../../../src/types.js';
import { sqliteStore } from '../../support/stores.js';

// A large SQLite folder is embedded with its reads and writes in a worker thread on a connection of its
// own (threadFrom: 0 here, for a small folder): the same vectors and ledger rows as in this thread,
// what came back kept when stopped, and the worker's failures said here.

const dirs: string[] = [];
const stores: SqliteStore[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const temp = (name: string) => {
  const dir = mkdtempSync(join(tmpdir(), `agent-${name}-`));
  dirs.push(dir);
  return dir;
};

/** A folder of `docs` documents of ten sections each, indexed into a store in a file of its own. */
async function indexedFolder(docs: number) {
  const dir = temp('thread-docs');
  writeFileSync(join(dir, 'aaa.md'), '# Notice\n\n## Disclaimer\n\nNothing here is legal advice.\n');
  writeFileSync(join(dir, 'zzz.md'), '# Notice\n\n## Disclaimer\n\nNothing here is legal advice.\n');
  for (let d = 0; d < docs; d++) {
    const sections = Array.from({ length: 10 }, (_, s) => `## Part ${s}\n\nFiller ${d}-${s} says little.\n`);
    writeFileSync(join(dir, `m-${String(d).padStart(3, '0')}.md`), `# Doc ${d}\n\n${sections.join('\n')}`);
  }
  const store = await sqliteStore(join(temp('thread-db'), 'agent.db'), 'threaded');
  stores.push(store);
  await refreshIndex(store, dir);
  return { dir, store };
}

const vectorOf = (t: string) => [t.length, 1, (t.charCodeAt(t.length - 1) % 7) - 3, 0.5];

/** A model that records each call through the ledger writer it is given, as the retriever does. */
function model(options: { stopAfter?: number; controller?: AbortController } = {}) {
  const sent: string[] = [];
  let calls = 0;
  return {
    sent,
    space: 'test:model@4',
    async embedTexts(texts: string[], record: FolderIO['record']) {
      if (options.stopAfter !== undefined && ++calls > options.stopAfter) options.controller?.abort();
      sent.push(...texts);
      await new Promise((r) => setTimeout(r, 1));
      void record({
        command: 'research',
        runId: 'thread-test',
        step: 'embed',
        provider: 'test',
        model: 'model',
        usage: { ...emptyUsage(), input: texts.length },
      });
      return texts.map(vectorOf);
    },
  };
}

it('embeds a folder from a worker thread as this thread would: every text once, its ledger rows kept', async () => {
  const { dir, store } = await indexedFolder(110);
  const target = model();
  const done = await embedMissing(target, store, dir, { parallel: 2, threadFrom: 0 });
  expect(done).toBe(target.sent.length);
  expect(target.sent.filter((t) => t.includes('legal advice'))).toHaveLength(1);
  expect(new Set(target.sent).size).toBe(target.sent.length);
  // Seen from this thread's connection: written by the worker's.
  expect(await store.vectors.countMissing(dir, target.space)).toBe(0);
  const totals = await store.ledger.runTotals('thread-test');
  expect(totals.calls).toBeGreaterThan(1);
  expect(totals.inputTokens).toBe(target.sent.length);
  const users = store.db
    .prepare("SELECT DISTINCT created_by FROM usage_ledger WHERE run_id = 'thread-test'")
    .pluck()
    .all();
  expect(users).toEqual(['threaded']);
  // The vectors are those this thread would have kept: the nearest passage to a text's vector is its own.
  expect(await store.vectors.unavailable()).toBeUndefined();
  const [hit] = await store.vectors.nearest(
    dir,
    target.space,
    vectorOf('Part 3\n\nFiller 7-3 says little.'),
    1,
  );
  expect(hit?.similarity).toBeGreaterThan(0.99);
});

it('keeps what came back when stopped, and the next run embeds only the rest', async () => {
  const { dir, store } = await indexedFolder(110);
  const controller = new AbortController();
  const first = model({ stopAfter: 5, controller });
  await expect(
    embedMissing(first, store, dir, { parallel: 1, threadFrom: 0, signal: controller.signal }),
  ).rejects.toBeInstanceOf(AbortedError);
  const left = await store.vectors.countMissing(dir, first.space);
  const total = new Set(first.sent).size + left;
  expect(left).toBeGreaterThan(0);
  expect(left).toBeLessThan(total);
  const second = model();
  await embedMissing(second, store, dir, { parallel: 1, threadFrom: 0 });
  expect(await store.vectors.countMissing(dir, second.space)).toBe(0);
  // Only what the first run had not kept.
  expect(second.sent.length).toBe(left);
});

it("says why the worker's write failed, and answers nothing after it is closed", async () => {
  const { dir, store } = await indexedFolder(2);
  const io = await folderThread(store, dir, 'test:model@4');
  expect(io).toBeDefined();
  const round = await io!.round(0, 100);
  expect(round?.texts.length).toBeGreaterThan(0);
  // The table gone under it: the worker's connection cannot write, and says so here.
  store.db.exec('DROP TABLE vector_chunks');
  const vector = io!.prepare([1, 0, 0, 0]);
  await expect(io!.put([{ hash: 'ab'.repeat(32), vector }])).rejects.toThrow(/no such table: vector_chunks/);
  await io!.close();
  await expect(io!.countMissing()).rejects.toThrow(/stopped|closed/);
});

it('stays in this thread for a database in memory', async () => {
  const store = await sqliteStore();
  stores.push(store);
  expect(await folderThread(store, '/nowhere', 'test:model@4')).toBeUndefined();
});
