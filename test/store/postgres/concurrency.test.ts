import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDatabase, type TestDatabase } from '../../support/pg.js';

// Four processes writing research runs, notes and ledger rows to one database at once lose nothing.
// On PGlite, pglite-socket runs one connection's transaction at a time (see test/support/pg.ts), so
// this checks that every write is a complete transaction that waits its turn rather than failing.

const WRITER = fileURLToPath(new URL('../../support/pg-writer.mjs', import.meta.url));
const run = promisify(execFile);

let db: TestDatabase;
beforeAll(async () => {
  db = await startTestDatabase();
});
afterAll(() => db?.stop());

describe('four processes writing at once', () => {
  it('migrate the empty database once between them, and keep every run, note and ledger row', async () => {
    const perProcess = 6;
    const names = ['w1', 'w2', 'w3', 'w4'];
    const results = await Promise.all(
      names.map((name) =>
        run(process.execPath, [WRITER, db.url, name, String(perProcess)], { timeout: 240_000 }),
      ),
    );
    for (const r of results) expect(r.stdout).toBe('done\n');
    const steps = await db.sql<{ n: number }>(
      'SELECT count(*)::int AS n FROM schema_migrations GROUP BY name',
    );
    expect(steps).toHaveLength(22);
    expect(steps.every((s) => s.n === 1)).toBe(true);
    const count = async (sql: string) => (await db.sql<{ n: number }>(sql))[0]!.n;
    expect(await count("SELECT count(*)::int AS n FROM research_runs WHERE status = 'done'")).toBe(24);
    expect(await count('SELECT count(*)::int AS n FROM research_runs')).toBe(24);
    expect(await count('SELECT count(*)::int AS n FROM notes')).toBe(24);
    expect(await count('SELECT count(*)::int AS n FROM usage_ledger')).toBe(72);
    expect(await count('SELECT count(*)::int AS n FROM run_texts')).toBe(24);
    // Progress is dropped as each run completes; the two shared texts are stored once each.
    expect(await count('SELECT count(*)::int AS n FROM run_sources')).toBe(0);
    expect(await count('SELECT count(*)::int AS n FROM source_texts')).toBe(2);
    const byUser = await db.sql<{ created_by: string; n: number }>(
      'SELECT created_by, count(*)::int AS n FROM notes GROUP BY 1 ORDER BY 1',
    );
    expect(byUser).toEqual(names.map((created_by) => ({ created_by, n: perProcess })));
  });
});
