import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { openPostgres } from '../../src/store/postgres/open.js';
import { ROOT, runCli } from '../support/cli.js';
import { ROLES_SQL } from '../support/pg-roles.js';

// The team set-up of docs/team.md (linked from the README), run as written on a real server (CI's Debian
// PostgreSQL): its SQL blocks in order — the superuser's, then the admin's — with db/roles.sql and `agent
// db migrate` as the admin (no superuser), then the CLI as two members. Names get a suffix of this run
// (roles are the server's).

const server = process.env.AGENT_TEST_DATABASE_URL;
const run = randomUUID().replaceAll('-', '').slice(0, 8);
const names: Record<string, string> = {
  agent_admin: `rd_admin_${run}`,
  alice: `rd_alice_${run}`,
  bob: `rd_bob_${run}`,
  team_bot: `rd_bot_${run}`,
};
const database = `rd_agent_${run}`;

/** The ```sql blocks of docs/team.md, in order, with this run's names. */
function teamPageSql(): string[] {
  const page = readFileSync(`${ROOT}/docs/team.md`, 'utf8');
  return [...page.matchAll(/```sql\n([\s\S]*?)```/g)].map((m) =>
    Object.entries(names).reduce(
      (sql, [from, to]) => sql.replace(new RegExp(`\\b${from}\\b`, 'g'), to),
      m[1]!.replace(/\bDATABASE agent\b/g, `DATABASE ${database}`),
    ),
  );
}

const urlFor = (role: string, password: string, db = database) => {
  const url = new URL(server!);
  url.username = role;
  url.password = password;
  url.pathname = `/${db}`;
  return url.toString();
};

/** Each statement on its own, as psql runs them (CREATE DATABASE cannot share a transaction). */
async function sql(url: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const statements = /^DO\b|\$\$/m.test(text) ? [text] : text.split(/;\s*(?:\n|$)/);
    for (const statement of statements.map((s) => s.replace(/^--.*$/gm, '').trim()).filter(Boolean))
      await client.query(statement);
  } finally {
    await client.end();
  }
}

afterAll(async () => {
  if (!server) return;
  await sql(server, `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch(() => {});
  for (const role of Object.values(names)) await sql(server, `DROP ROLE IF EXISTS ${role}`).catch(() => {});
});

it("docs/team.md's set-up is three SQL steps: the superuser's, the schema's owner, the people", () => {
  const [admin, schema, people, ...rest] = teamPageSql();
  expect(rest).toEqual([]);
  expect(admin).toMatch(/CREATE ROLE rd_admin_\w+ LOGIN CREATEROLE[\s\S]*CREATE DATABASE rd_agent_\w+ OWNER/);
  expect(schema).toMatch(/ALTER SCHEMA public OWNER TO rd_admin_\w+/);
  expect(people).toMatch(
    /CREATE ROLE rd_alice_\w+ LOGIN PASSWORD 'rd_alice_\w+-secret' IN ROLE agent_member/,
  );
});

describe.skipIf(!server)("docs/team.md's team set-up on a real server", () => {
  it('works as written for an admin who is no superuser, and keeps two members apart', async () => {
    const [admin, schema, people, ...rest] = teamPageSql();
    expect(rest).toEqual([]);
    expect(admin).toMatch(/CREATE ROLE rd_admin_\w+ LOGIN CREATEROLE/);
    // 1. The superuser.
    await sql(server!, admin!);
    await sql(urlFor(new URL(server!).username, decodeURIComponent(new URL(server!).password)), schema!);
    // 2. The admin: db/roles.sql (psql -f), then agent db migrate.
    const adminUrl = urlFor(names.agent_admin!, 'admin-secret');
    await sql(adminUrl, ROLES_SQL);
    const migrated = await runCli(['db', 'migrate'], { env: { AGENT_DATABASE_URL: adminUrl } });
    expect(migrated.stderr).toBe('');
    expect(migrated.code).toBe(0);
    expect(migrated.stdout).toMatch(/Applied 015_least_privilege/);
    // 3. The admin, per person.
    await sql(adminUrl, people!);

    // The passwords went through the renaming too ('alice-secret' names alice).
    const aliceUrl = urlFor(names.alice!, `${names.alice}-secret`);
    const bobEnv = { AGENT_DATABASE_URL: urlFor(names.bob!, `${names.bob}-secret`), AGENT_USER: 'Bob' };
    const alice = await openPostgres(aliceUrl, { env: { AGENT_USER: 'someone else' } });
    let note: number;
    try {
      expect(alice.user).toBe(names.alice);
      note = (await alice.notes.add({ content: 'Alice keeps this note.' })).id;
      await alice.sessions.saveExchange(undefined, 'alice-chat', {
        provider: 'p',
        model: 'm',
        messages: [{ role: 'user', content: 'private' }],
      });
    } finally {
      await alice.close();
    }
    // Nothing to warn a member about: a role of their own, and nobody can CREATE in the schema.
    const status = await runCli(['db', 'status', '--json'], { env: { AGENT_DATABASE_URL: aliceUrl } });
    expect(status.stderr).toBe('');
    expect(JSON.parse(status.stdout)).toMatchObject({ warnings: [], user: names.alice, pending: [] });

    const seen = await runCli(['notes', '--json'], { env: bobEnv });
    expect(
      JSON.parse(seen.stdout).map((n: { content: string; user: string }) => [n.content, n.user]),
    ).toEqual([['Alice keeps this note.', names.alice]]);
    const refused = await runCli(['notes', '--delete', String(note)], { env: bobEnv });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(
      `agent: Note #${note} is ${names.alice}'s: only its author can delete it (you are ${names.bob}).\n`,
    );
    const sessions = await runCli(['sessions', '--all', '--json'], { env: bobEnv });
    expect(JSON.parse(sessions.stdout)).toEqual([]);
    const deleted = await runCli(['notes', '--delete', String(note)], {
      env: { AGENT_DATABASE_URL: aliceUrl },
    });
    expect(deleted.code).toBe(0);
  });
});
