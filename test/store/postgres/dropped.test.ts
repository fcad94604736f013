import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreError } from '../../../src/store/errors.js';
import { openPostgres } from '../../../src/store/postgres/open.js';
import type { PostgresStore } from '../../../src/store/postgres/store.js';
import { openTestStore, startTestDatabase, type TestDatabase } from '../../support/pg.js';

// A connection dropped during a research run (the network, a server restart) loses no completed step:
// each step was committed when it ended, and the next step gets a new connection.

let db: TestDatabase;
let store: PostgresStore;
beforeAll(async () => {
  db = await startTestDatabase();
  store = await openTestStore(db);
});
afterAll(async () => {
  await store?.close();
  await db?.stop();
});

describe('a dropped connection', () => {
  it('keeps every step committed before it, and the run goes on', async () => {
    const id = await store.progress.start({
      question: 'Q?',
      createdAt: 1,
      ledgerId: 'drop-1',
      options: {},
      holder: 'h:1:a',
      plan: { searches: [] },
    });
    await store.progress.recordSource(id, 'doc:a', { title: 'A' }, 'text a');
    await store.progress.recordFacts(id, 'doc:a', 'facts a');
    await db.dropConnections();
    await new Promise((resolve) => setTimeout(resolve, 200));
    // The pool lets go of the dead connection; the next step is written on a new one.
    await store.progress.recordSource(id, 'doc:b', { title: 'B' }, 'text b');
    const progress = await store.progress.load(id);
    expect([...progress!.sources.keys()]).toEqual(['doc:a', 'doc:b']);
    expect(progress!.sources.get('doc:a')!.facts).toBe('facts a');
  });

  it('with the server gone, a step fails as one line saying so (exit 1), and nothing is half-written', async () => {
    const gone = await openPostgres(db.url, { env: { AGENT_USER: 'tester' } });
    // Every query of this store now goes to a port where nothing listens.
    const pool = gone.db.pool as unknown as { options: { port: number } };
    pool.options.port = 1;
    await db.dropConnections();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const failure = await gone.notes.add({ content: 'lost' }).catch((e: unknown) => e);
    await gone.close();
    expect(failure).toBeInstanceOf(StoreError);
    expect((failure as StoreError).exitCode).toBe(1);
    expect((failure as Error).message).toMatch(
      /^the connection to the PostgreSQL server \(postgres:\/\/.*\) was lost: .*; what was saved before stays saved/,
    );
    expect((failure as Error).message.split('\n')).toHaveLength(1);
    expect(await store.notes.list('lost')).toEqual([]);
  });
});
