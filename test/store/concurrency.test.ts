import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect, it } from 'vitest';
import { openDatabase } from '../../src/store/sqlite/open.js';
import { ROOT, tempDb } from '../support/cli.js';

// Each child opens the same (not yet existing) database through the built store and writes rows one
// call at a time, as a chat and a research run would.
const writer = (db: string, tag: string, rows: number) => `
  const { openStore } = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'dist/store/open.js')).href)});
  const store = await openStore(${JSON.stringify(db)});
  for (let i = 0; i < ${rows}; i++) {
    await store.ledger.record({ command: 'chat', runId: '${tag}', step: 'chat', provider: 'anthropic', model: 'claude-haiku-4-5',
      usage: { input: 10, cacheRead: 0, cacheWrite: 0, output: 5, reasoning: 0 } });
    if (i % 10 === 0) await store.notes.add({ content: '${tag} note ' + i });
  }
  await store.close();
`;

function run(script: string): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    child.on('error', reject);
    child.on('close', resolve);
  });
}

it('two processes writing at once lose nothing', async () => {
  const path = tempDb();
  const codes = await Promise.all([run(writer(path, 'a', 400)), run(writer(path, 'b', 400))]);
  expect(codes).toEqual([0, 0]);
  const db = openDatabase(path);
  const counts = db
    .prepare('SELECT run_id, COUNT(*) AS n FROM usage_ledger GROUP BY run_id ORDER BY run_id')
    .all();
  expect(counts).toEqual([
    { run_id: 'a', n: 400 },
    { run_id: 'b', n: 400 },
  ]);
  expect(db.prepare('SELECT COUNT(*) AS n FROM notes').get()).toEqual({ n: 80 });
  db.close();
});
