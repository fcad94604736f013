import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { openTestStore, startTestDatabase, type TestDatabase } from '../support/pg.js';

// `agent db copy --to file.db`: a team database back into a new SQLite file, rows keeping their numbers.

let db: TestDatabase;
beforeAll(async () => {
  db = await startTestDatabase();
  const store = await openTestStore(db, 'alice');
  await store.notes.add({ content: 'Refunds over $200 need a lead.', tags: ['refunds'] });
  await store.runs.save({
    question: 'Who approves refunds?',
    mode: 'model',
    answer: 'Leads [1].',
    costUsd: 0.5,
    result: { answer: 'Leads [1].' },
    texts: [{ n: 1, text: 'Leads approve refunds.' }],
  });
  await store.sessions.saveExchange(undefined, 'run-chat', {
    provider: 'p',
    model: 'm',
    messages: [{ role: 'user', content: 'hello' }],
  });
  await store.ledger.record({
    command: 'chat',
    runId: 'run-chat',
    step: 'chat',
    provider: 'openai',
    model: 'gpt-4o-mini',
    usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
  });
  await store.close();
});
afterAll(() => db?.stop());

describe('agent db copy --to file.db', () => {
  it('copies the team database into a new SQLite file that agent then reads', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'agent-out-')), 'team.db');
    const r = await runCli(['--db', db.url, 'db', 'copy', '--to', file, '--json'], {
      env: { AGENT_USER: 'alice' },
    });
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).copied).toEqual({
      reports: 1,
      notes: 1,
      sessions: 1,
      messages: 1,
      ledger: 1,
      pages: 0,
      extractions: 0,
    });
    const env = { AGENT_DB: file, AGENT_USER: 'alice' };
    const reports = JSON.parse((await runCli(['reports', '--json'], { env })).stdout);
    expect(reports.map((x: { question: string; user: string }) => [x.question, x.user])).toEqual([
      ['Who approves refunds?', 'alice'],
    ]);
    const notes = await runCli(['notes', 'refunds'], { env });
    expect(notes.stdout).toContain('Refunds over $200 need a lead.');
    const sessions = await runCli(['sessions', '--json'], { env });
    expect(JSON.parse(sessions.stdout)).toHaveLength(1);

    // A file that holds anything is never added to.
    const again = await runCli(['--db', db.url, 'db', 'copy', '--to', file]);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/already exists: db copy --to <file> writes a new SQLite file/);
  });

  it('needs the team database to copy from', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'agent-out-')), 'x.db');
    writeFileSync(`${file}.src`, '');
    const r = await runCli(['--db', `${file}.src`, 'db', 'copy', '--to', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/name the team database with --db postgres:\/\//);
  });
});
