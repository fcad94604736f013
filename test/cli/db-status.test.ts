import { describe, expect, it } from 'vitest';
import { migrations } from '../../src/store/sqlite/migrations.js';
import { openDatabase } from '../../src/store/sqlite/open.js';
import { runCli, tempDb } from '../support/cli.js';
import { sqliteStore } from '../support/stores.js';

const latest = () => Number.parseInt(migrations().at(-1)!.name, 10);

describe('agent db status', () => {
  it('says which database, its schema version and its rows, as text and as JSON', async () => {
    const path = tempDb();
    const store = await sqliteStore(path, 'alice');
    await store.notes.add({ content: 'Refund limit is $200' });
    await store.notes.add({ content: 'Hotels up to $300' });
    await store.runs.save({ question: 'Q', mode: 'model', answer: 'A', costUsd: 0, result: {} });
    await store.close();
    const r = await runCli(['--db', path, 'db', 'status', '--json'], { env: { AGENT_USER: 'bob' } });
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(r.stdout)).toEqual({
      kind: 'sqlite',
      location: path,
      schemaVersion: latest(),
      pending: [],
      counts: { reports: 1, notes: 2, sessions: 0, ledger: 0, documents: 0 },
      user: 'bob',
    });
    const text = await runCli(['db', 'status'], { env: { AGENT_DB: path, AGENT_USER: 'bob' } });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`SQLite file ${path}\nSchema version ${latest()} (up to date).`);
    expect(text.stdout).toMatch(/notes\s+2\n/);
  });

  it('lists the steps a database has not applied, and db migrate applies them, each said once', async () => {
    const path = tempDb();
    const db = openDatabase(path, { migrate: false });
    const steps = migrations();
    // A database of the version before the last step.
    const { migrate } = await import('../../src/store/sqlite/migrations.js');
    migrate(db, steps.slice(0, -1));
    db.close();
    const last = steps.at(-1)!.name;
    const status = JSON.parse((await runCli(['--db', path, 'db', 'status', '--json'])).stdout);
    expect(status).toMatchObject({ schemaVersion: Number.parseInt(steps.at(-2)!.name, 10), pending: [last] });

    const applied = await runCli(['--db', path, 'db', 'migrate']);
    expect(applied).toMatchObject({ code: 0, stderr: '' });
    expect(applied.stdout).toBe(`Applied ${last}\n${path} is now at schema version ${latest()}.\n`);
    const again = await runCli(['--db', path, 'db', 'migrate', '--json']);
    expect(JSON.parse(again.stdout)).toEqual({
      kind: 'sqlite',
      location: path,
      applied: [],
      schemaVersion: latest(),
    });
    expect((await runCli(['--db', path, 'db', 'migrate'])).stdout).toBe(
      `${path} is up to date (schema version ${latest()}): nothing to apply.\n`,
    );
  });

  it('of a new file: schema version 0, every step pending, nothing counted', async () => {
    const r = await runCli(['--db', tempDb(), 'db', 'status', '--json']);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(r.stdout)).toMatchObject({
      schemaVersion: 0,
      pending: migrations().map((m) => m.name),
      counts: { reports: 0, notes: 0, sessions: 0, ledger: 0, documents: 0 },
    });
  });

  it('check and recover are for SQLite files: on a PostgreSQL URL they say so, exit 2', async () => {
    const url = 'postgres://alice:secret@db.example:5432/team';
    for (const args of [
      ['db', 'check'],
      ['db', 'recover', '--to', '/tmp/x.db'],
    ]) {
      const r = await runCli(args, { env: { AGENT_DATABASE_URL: url } });
      expect(r).toMatchObject({ code: 2, stdout: '' });
      expect(r.stderr).toMatch(/^agent: agent db (check|recover) works on SQLite files only/);
      expect(r.stderr).toContain('postgres://alice:***@db.example:5432/team');
      expect(r.stderr).not.toContain('secret');
    }
  });
});
