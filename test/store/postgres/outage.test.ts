import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChatSession } from '../../../src/chat/session.js';
import { StoreError } from '../../../src/store/errors.js';
import { openPostgres } from '../../../src/store/postgres/open.js';
import type { PostgresStore } from '../../../src/store/postgres/store.js';
import { ToolRegistry } from '../../../src/tools/registry.js';
import { startTestDatabase, type TestDatabase } from '../../support/pg.js';
import { reply, scriptedProvider, text } from '../../support/scripted-provider.js';

// The server going away: a transaction cut in the middle is one StoreError (never an unhandled 'error'
// event, which would end the process), and a chat keeps its exchanges and ledger rows until it is back.

let db: TestDatabase;
let store: PostgresStore;
beforeAll(async () => {
  db = await startTestDatabase();
  store = await openPostgres(db.url, { env: { AGENT_USER: 'tester' } });
});
afterAll(async () => {
  await store?.close();
  await db?.stop();
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Sends every new connection of the store's pool to a port where nothing listens, until `back`. */
async function outage(of: PostgresStore): Promise<{ back(): void }> {
  const pool = of.db.pool as unknown as { options: { port: number } };
  const port = pool.options.port;
  pool.options.port = 1;
  await db.dropConnections();
  await pause(200);
  return {
    back() {
      pool.options.port = port;
    },
  };
}

describe('the server going away', () => {
  it('in an open transaction: one StoreError saying the connection was lost, exit 1', async () => {
    const failure = await store.db
      .tx(async (c) => {
        await c.query('SELECT 1');
        await db.dropConnections();
        await pause(200);
        await c.query('SELECT 1');
      })
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(StoreError);
    expect((failure as StoreError).problem).toBe('offline');
    expect((failure as StoreError).exitCode).toBe(1);
    expect((failure as Error).message).toMatch(/^the connection to the PostgreSQL server .* was lost/);
    // The pool goes on with a new connection.
    expect(await store.db.query('SELECT 1 AS n')).toEqual([{ n: 1 }]);
  });

  it('during a chat: every exchange and ledger row is saved once the server is back', async () => {
    const chatStore = await openPostgres(db.url, { env: { AGENT_USER: 'chatter' } });
    const provider = scriptedProvider((_, i) => reply([text(`answer ${i}`)]));
    const session = new ChatSession({
      provider,
      model: 'm',
      registry: new ToolRegistry([]),
      maxTurns: 3,
      store: chatStore,
    });
    const notices: string[] = [];
    const onEvent = (e: { type: string; message?: string }) => {
      if (e.type === 'notice') notices.push(e.message!);
    };
    try {
      await session.send('one', { onEvent });
      const down = await outage(chatStore);
      await session.send('two', { onEvent });
      await session.send('three', { onEvent });
      // Two exchanges and two ledger rows wait; the chat went on.
      expect(session.unsavedCount).toBe(4);
      expect(session.saved).toBe(true);
      expect(notices).toEqual([expect.stringMatching(/^Saving is waiting for the database server/)]);
      down.back();
      await session.send('four', { onEvent });
      expect(await session.flush()).toBe(0);
      const [saved] = await chatStore.sessions.list();
      expect(saved?.exchanges).toBe(4);
      expect(
        (await chatStore.sessions.messages(saved!.id))
          .filter((m) => m.message.role === 'user')
          .map((m) => m.message.content),
      ).toEqual(['one', 'two', 'three', 'four']);
      expect((await chatStore.ledger.runTotals(session.runId)).calls).toBe(4);
    } finally {
      await chatStore.close();
    }
  });

  it('at the end of a chat whose server stayed away: how many writes are unsaved', async () => {
    const chatStore = await openPostgres(db.url, { env: { AGENT_USER: 'chatter2' } });
    const provider = scriptedProvider(() => reply([text('answer')]));
    const session = new ChatSession({
      provider,
      model: 'm',
      registry: new ToolRegistry([]),
      maxTurns: 3,
      store: chatStore,
    });
    try {
      const down = await outage(chatStore);
      await session.send('one');
      expect(await session.flush()).toBe(2);
      down.back();
      expect(await session.flush()).toBe(0);
    } finally {
      await chatStore.close();
    }
  });
});
