import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copySqlite, openSource } from '../../../src/store/postgres/copy.js';
import { openPostgres } from '../../../src/store/postgres/open.js';
import type { PostgresStore } from '../../../src/store/postgres/store.js';
import { tempDb } from '../../support/cli.js';
import { startTestDatabase, type TestDatabase } from '../../support/pg.js';
import { sqliteStore } from '../../support/stores.js';

// NUL characters, which PostgreSQL's text cannot hold: a chat message, a note, a question or a copied row
// with one is stored with U+FFFD in its place, said once, instead of failing ("invalid byte sequence").

let db: TestDatabase;
let store: PostgresStore;
const notices: string[] = [];
beforeAll(async () => {
  db = await startTestDatabase();
  store = await openPostgres(db.url, { env: { AGENT_USER: 'nul' }, onNotice: (m) => notices.push(m) });
});
afterAll(async () => {
  await store?.close();
  await db?.stop();
});

const message = (content: string) => ({
  provider: 'p',
  model: 'm',
  messages: [{ role: 'user' as const, content }],
});

describe('NUL characters', () => {
  it('are stored as U+FFFD in every kind of row, and said once', async () => {
    const id = await store.sessions.saveExchange(undefined, 'run-nul', message('a\u0000b'));
    expect((await store.sessions.get(id))?.firstMessage).toBe('a\uFFFDb');
    // In the JSON of the message it is kept escaped, exactly.
    expect((await store.sessions.messages(id))[0]?.message).toEqual({ role: 'user', content: 'a\u0000b' });
    const note = await store.notes.add({ content: 'x\u0000y', tags: ['t\u0000'] });
    expect(note.content).toBe('x\uFFFDy');
    const run = await store.runs.save({
      question: 'Q\u0000?',
      mode: 'model',
      answer: 'A\u0000',
      costUsd: null,
      result: { q: 'Q\u0000?' },
      texts: [{ n: 1, text: 'source \u0000 text' }],
    });
    expect((await store.runs.get(run))?.question).toBe('Q\uFFFD?');
    expect(await store.notes.list('x\u0000y')).toHaveLength(1);
    expect(notices.filter((n) => /NUL/.test(n))).toHaveLength(1);
  });

  it('in a SQLite history are copied, and a second copy skips them', async () => {
    const path = tempDb();
    const local = await sqliteStore(path, 'nul');
    await local.sessions.saveExchange(undefined, 'run-local', message('local\u0000chat'));
    await local.notes.add({ content: 'local\u0000note' });
    await local.close();
    const source = openSource(path);
    try {
      const first = await copySqlite(source, path, store.db);
      expect(first.copied).toMatchObject({ sessions: 1, messages: 1, notes: 1 });
      const again = await copySqlite(source, path, store.db);
      expect(again.copied).toMatchObject({ sessions: 0, messages: 0, notes: 0 });
    } finally {
      source.close();
    }
    expect((await store.notes.list()).map((n) => n.content)).toContain('local\uFFFDnote');
  });
});
