import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgres } from '../../../src/store/postgres/open.js';
import { openTestStore, startTestDatabase, type TestDatabase } from '../../support/pg.js';
import { dropRoles } from '../../support/pg-roles.js';

// What only a real server checks (PGlite accepts any password and ignores startup options): a password
// with / @ # % works percent-encoded; the URL's options reach the server; target_session_attrs holds.

let db: TestDatabase;
beforeAll(async () => {
  db = await startTestDatabase();
  await (await openTestStore(db)).close();
});
afterAll(async () => {
  if (db && !db.lite) await dropRoles(db, ['t_url']);
  await db?.stop();
});

describe.skipIf(!process.env.AGENT_TEST_DATABASE_URL)('URLs on a real server', () => {
  it('connects with a percent-encoded password holding / @ # % ?', async () => {
    const password = 'p@ss/w0rd#x%y?';
    await dropRoles(db, ['t_url']);
    await db.sql(`CREATE ROLE t_url LOGIN PASSWORD '${password}'`);
    const url = new URL(db.url);
    const encoded = `postgres://t_url:${encodeURIComponent(password)}@${url.host}${url.pathname}`;
    const store = await openPostgres(encoded, { env: { AGENT_USER: 'u' }, migrate: false });
    try {
      expect(store.identity.role).toBe('t_url');
      expect(store.location).not.toContain('w0rd');
    } finally {
      await store.close();
    }
  });

  it('passes the options parameter on: a read-only session is known as such', async () => {
    const notices: string[] = [];
    const store = await openPostgres(
      `${db.url}?options=-c%20default_transaction_read_only%3Don&application_name=t1`,
      {
        env: { AGENT_USER: 'u' },
        onNotice: (m) => notices.push(m),
      },
    );
    try {
      expect(store.readOnly).toBe(true);
      expect(notices.join('\n')).toMatch(/accepts only reads/);
      expect(await store.db.query('SHOW application_name')).toEqual([{ application_name: 't1' }]);
      // And every connection looks in pg_catalog first.
      expect(await store.db.query('SHOW search_path')).toEqual([{ search_path: 'pg_catalog, public' }]);
    } finally {
      await store.close();
    }
    await expect(
      openPostgres(
        `${db.url}?options=-c%20default_transaction_read_only%3Don&target_session_attrs=read-write`,
        {
          env: {},
        },
      ),
    ).rejects.toThrow(/target_session_attrs=read-write asks for a server that accepts writes/);
  });
});
