import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../support/cli.js';
import { startFakeServer } from '../support/fake-server.js';
import { openTestStore, startTestDatabase, type TestDatabase } from '../support/pg.js';
import { LOOPBACK_RESEARCH } from '../support/research-world.js';

// The URL mistakes of issue 28, through the built CLI: each one line, exit 2, the password never shown,
// no file made; and a database that accepts only reads is said before any model call is paid for.

describe('database URLs given to the CLI', () => {
  it('refuses a scheme typo, and never makes a file named after the URL', async () => {
    for (const url of ['postgress://a:TOPSECRET@h/db', 'mysql://a:TOPSECRET@h/db']) {
      const r = await runCli(['--db', url, 'notes']);
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/is not postgres:\/\/ or postgresql:\/\//);
      expect(r.stderr).not.toContain('TOPSECRET');
      expect(existsSync(join(ROOT, url.split('/')[0]!))).toBe(false);
    }
    const copy = await runCli(['db', 'copy', '--to', 'postgre://a:TOPSECRET@h/db']);
    expect(copy.code).toBe(2);
    expect(copy.stderr).not.toContain('TOPSECRET');
  });

  it('says to percent-encode a password holding / @ #, without showing it', async () => {
    const r = await runCli(['notes'], {
      env: { AGENT_DATABASE_URL: 'postgres://a:p@ss/w0rd#x@127.0.0.1:1/db' },
    });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/must be percent-encoded/);
    expect(r.stderr).not.toMatch(/w0rd|p@ss/);
  });
});

describe('a database that accepts only reads', () => {
  let db: TestDatabase;
  let server: Awaited<ReturnType<typeof startFakeServer>>;
  beforeAll(async () => {
    db = await startTestDatabase();
    await (await openTestStore(db)).close();
    server = await startFakeServer([]);
  });
  afterAll(async () => {
    await server?.close();
    await db?.stop();
  });

  it('is said before the first model call, and research makes none', async () => {
    // On a server, the URL's options ask for it; PGlite (one session) takes the setting itself.
    let url = db.url;
    if (db.lite) await db.sql('SET default_transaction_read_only = on');
    else url += '?options=-c%20default_transaction_read_only%3Don';
    try {
      const r = await runCli([...LOOPBACK_RESEARCH, 'Who approves refunds?'], {
        env: { AGENT_DATABASE_URL: url, OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: 'k' },
      });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/accepts only reads/);
      expect(r.stderr).not.toMatch(/\n\s+at /);
      expect(server.requests).toEqual([]);
    } finally {
      if (db.lite) await db.sql('SET default_transaction_read_only = off');
    }
  });
});
