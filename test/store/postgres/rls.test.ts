import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgres } from '../../../src/store/postgres/open.js';
import type { PostgresStore } from '../../../src/store/postgres/store.js';
import { openTestStore, startTestDatabase, type TestDatabase } from '../../support/pg.js';

// Private chats enforced by the server: with one role per person, row-level security (014_people.sql)
// shows each role only the chat sessions and messages it wrote; the tables' owner sees all of them.

/** The README's set-up for a team: a group role with the rights agent needs, one login role per person. */
const TEAM_SETUP = `
  CREATE ROLE agent_team;
  GRANT USAGE ON SCHEMA public TO agent_team;
  GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO agent_team;
  GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO agent_team;
  CREATE ROLE alice LOGIN PASSWORD 'alice-pw' IN ROLE agent_team;
  CREATE ROLE bob LOGIN PASSWORD 'bob-pw' IN ROLE agent_team;`;

let db: TestDatabase;
let owner: PostgresStore;
beforeAll(async () => {
  db = await startTestDatabase();
  owner = await openTestStore(db, 'owner');
  // Roles belong to the whole server: names of this run only, dropped at the end.
  await db
    .sql('DROP ROLE IF EXISTS alice; DROP ROLE IF EXISTS bob; DROP ROLE IF EXISTS agent_team')
    .catch(() => {});
  await db.sql(TEAM_SETUP);
}, 60_000);
afterAll(async () => {
  await owner?.close();
  await db
    ?.sql('DROP OWNED BY alice, bob, agent_team; DROP ROLE alice; DROP ROLE bob; DROP ROLE agent_team')
    .catch(() => {});
  await db?.stop();
});

describe('row-level security on chats', () => {
  it('a role sees only the sessions and messages it wrote; the owner sees all', async () => {
    // PGlite serves every connection as one session, so each role's work is one transaction under
    // SET LOCAL ROLE (the policy is the server's either way).
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    const as = async <T>(role: string, sql: string, params: unknown[] = []): Promise<T[]> => {
      await client.query('BEGIN');
      try {
        await client.query(`SET LOCAL ROLE ${role}`);
        const { rows } = await client.query(sql, params);
        await client.query('COMMIT');
        return rows as T[];
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      }
    };
    try {
      const insert = `WITH s AS (
          INSERT INTO chat_sessions (run_id, created_at, updated_at, provider, model, first_message, created_by)
          VALUES ($1, 1, 1, 'p', 'm', 'secret', $2) RETURNING id)
        INSERT INTO chat_messages (session_id, seq, exchange, provider, model, message)
        SELECT id, 0, 1, 'p', 'm', '{"role":"user","content":"secret"}' FROM s RETURNING session_id`;
      await as('alice', insert, ['run-alice', 'alice']);
      await as('bob', insert, ['run-bob', 'bob']);
      const seen = (role: string) =>
        as<{ run_id: string }>(role, 'SELECT run_id FROM chat_sessions ORDER BY run_id').then((r) =>
          r.map((x) => x.run_id),
        );
      expect(await seen('alice')).toEqual(['run-alice']);
      expect(await seen('bob')).toEqual(['run-bob']);
      expect(
        await as(
          'bob',
          "SELECT m.* FROM chat_messages m JOIN chat_sessions s ON s.id = m.session_id WHERE s.run_id = 'run-alice'",
        ),
      ).toEqual([]);
      expect(await as('bob', 'SELECT count(*)::int AS n FROM chat_messages')).toEqual([{ n: 1 }]);
      // Nor can a role write a row in another's name, or delete another's.
      await expect(
        as(
          'bob',
          "INSERT INTO chat_sessions (run_id, created_at, updated_at, provider, model, first_message, owner_role) VALUES ('x', 1, 1, 'p', 'm', 'f', 'alice')",
        ),
      ).rejects.toThrow(/row-level security/);
      expect(await as('bob', "DELETE FROM chat_sessions WHERE run_id = 'run-alice' RETURNING id")).toEqual(
        [],
      );
      // The owner (who ran the migrations) is exempt.
      expect((await owner.sessions.list({ all: true })).map((s) => s.runId).sort()).toEqual([
        'run-alice',
        'run-bob',
      ]);
    } finally {
      await client.end();
    }
  });

  it.skipIf(db?.lite ?? !process.env.AGENT_TEST_DATABASE_URL)(
    'each person connecting as their own role, through the store',
    async () => {
      const as = (role: string) => {
        const url = new URL(db.url);
        url.username = role;
        url.password = `${role}-pw`;
        return openPostgres(url.toString(), { env: { AGENT_USER: role } });
      };
      const alice = await as('alice');
      const bob = await as('bob');
      try {
        const id = await alice.sessions.saveExchange(undefined, 'store-alice', {
          provider: 'p',
          model: 'm',
          messages: [{ role: 'user', content: 'private' }],
        });
        expect((await alice.sessions.get(id))?.firstMessage).toBe('private');
        expect(await bob.sessions.get(id, { all: true })).toBeUndefined();
        expect((await bob.sessions.list({ all: true })).map((s) => s.runId)).not.toContain('store-alice');
        expect(await bob.sessions.messages(id)).toEqual([]);
        // Shared by the team: reports, notes and the ledger.
        const note = await alice.notes.add({ content: 'team note' });
        expect((await bob.notes.list()).map((n) => n.id)).toContain(note.id);
      } finally {
        await alice.close();
        await bob.close();
      }
    },
  );
});
