import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import {
  type FakeResponse,
  json,
  type RecordedRequest,
  sse,
  startFakeServer,
} from '../support/fake-server.js';
import { startTestDatabase, type TestDatabase } from '../support/pg.js';
import { LOOPBACK_RESEARCH } from '../support/research-world.js';
import { chatSse } from '../support/sse-builders.js';

// The built CLI with all its state on PostgreSQL (AGENT_DATABASE_URL): research from the shared document
// index and the web, reports, notes, chat sessions, the ledger by person, and `agent db status` — what a
// team does — against PGlite over the wire protocol, or the server AGENT_TEST_DATABASE_URL names.

const page = (title: string, fact: string) =>
  `<html><head><title>${title}</title></head><body><main><h1>${title}</h1><p>${fact}</p></main></body></html>`;

describe('agent on a team PostgreSQL database', () => {
  let db: TestDatabase;
  let server: Awaited<ReturnType<typeof startFakeServer>>;

  const handler = (req: RecordedRequest): FakeResponse => {
    const url = new URL(req.url, 'http://x');
    if (url.pathname === '/search')
      return json(200, {
        web: { results: [{ title: 'Tiers', url: `${server.url}/tiers`, description: 'tiers' }] },
      });
    if (url.pathname === '/tiers')
      return { headers: { 'content-type': 'text/html' }, body: page('Tiers', 'Agents approve up to $200.') };
    const body = req.body as { messages: { role: string; content: string }[] };
    const system = body.messages[0]?.content ?? '';
    if (system.includes('You plan research'))
      return sse(chatSse({ text: '{"documents": ["policies/refunds"], "searches": ["refund tiers"]}' }));
    if (system.includes('You extract facts')) return sse(chatSse({ text: '- Agents approve up to $200.' }));
    if (system.includes('You write the answer'))
      return sse(chatSse({ text: 'Agents approve up to $200 [2].' }));
    // Chat: the model keeps a note, then answers.
    if (body.messages.at(-1)?.role === 'tool') return sse(chatSse({ text: 'Noted.' }));
    return sse(
      chatSse({
        calls: [{ id: 'n1', name: 'save_note', args: { content: 'Refunds over $200 need a lead.' } }],
      }),
    );
  };

  beforeAll(async () => {
    db = await startTestDatabase();
    server = await startFakeServer([], handler);
  });
  afterAll(async () => {
    await server?.close();
    await db?.stop();
  });

  const env = (user: string) => ({
    AGENT_DATABASE_URL: db.url,
    AGENT_USER: user,
    OPENAI_BASE_URL: `${server.url}/v1`,
    OPENAI_API_KEY: 'k',
    BRAVE_SEARCH_KEY: 'k',
    BRAVE_SEARCH_URL: `${server.url}/search`,
    AGENT_ALLOW_HOSTS: new URL(server.url).host,
  });
  const as = (user: string, args: string[], input?: string) => runCli(args, { env: env(user), input });

  it('keeps research, reports, notes, chats and the ledger there, by person', async () => {
    const run = await as('alice', [...LOOPBACK_RESEARCH, '--json', 'Who approves refunds?']);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result.answer).toBe('Agents approve up to $200 [2].');
    // The document came from the index in PostgreSQL, the page from the web.
    expect(result.sources.map((s: { kind: string }) => s.kind)).toEqual(['document', 'web']);
    expect(result.grounding.unsupported).toEqual([]);

    const reports = JSON.parse((await as('bob', ['reports', '--json'])).stdout);
    expect(reports.map((r: { question: string; user: string }) => [r.question, r.user])).toEqual([
      ['Who approves refunds?', 'alice'],
    ]);
    expect(JSON.parse((await as('bob', ['reports', '--user', 'bob', '--json'])).stdout)).toEqual([]);
    const shown = await as('bob', ['reports', '--show', String(reports[0].id), '--json']);
    expect(JSON.parse(shown.stdout).evidence[0].quote).toBe('Agents approve up to $200.');

    const chat = await as('bob', ['chat', '--provider', 'openai-compatible', '-m', 'small'], 'Note this\n');
    expect(chat.code).toBe(0);
    expect(chat.stdout).toContain('Noted.');
    const found = JSON.parse((await as('alice', ['notes', 'refunds', '--json'])).stdout);
    expect(found.map((n: { content: string; user: string }) => [n.content, n.user])).toEqual([
      ['Refunds over $200 need a lead.', 'bob'],
    ]);
    const own = JSON.parse((await as('bob', ['sessions', '--json'])).stdout);
    expect(own).toHaveLength(1);
    expect(JSON.parse((await as('alice', ['sessions', '--json'])).stdout)).toEqual([]);
    expect(JSON.parse((await as('alice', ['sessions', '--all', '--json'])).stdout)).toHaveLength(1);

    const cost = JSON.parse((await as('alice', ['cost', '--by', 'user', '--json'])).stdout);
    const calls = Object.fromEntries(cost.rows.map((r: { key: string; calls: number }) => [r.key, r.calls]));
    expect(calls).toEqual({ alice: 4, bob: 2 }); // plan, two extractions, write; chat: the call, the answer

    const status = await as('alice', ['db', 'status', '--json']);
    expect(status.code).toBe(0);
    const s = JSON.parse(status.stdout);
    expect(s).toMatchObject({ kind: 'postgres', pending: [] });
    expect(s.location).not.toContain(':test@');
    expect(s.counts).toMatchObject({ reports: 1, notes: 1, sessions: 1, ledger: 6 });
    expect(s.counts.documents).toBeGreaterThan(0);
  });

  it('answers every line of a batch when one question holds a NUL byte, which PostgreSQL cannot store', async () => {
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const file = join(mkdtempSync(join(tmpdir(), 'agent-nul-')), 'questions.txt');
    writeFileSync(file, 'Who approves refunds?\nWho approves\u0000 refunds today?\n');
    const r = await as('carol', [...LOOPBACK_RESEARCH, '--batch', file]);
    expect(r.stderr).not.toMatch(/invalid byte sequence|\n\s+at /);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l: { line: number; error?: string }) => [l.line, l.error])).toEqual(
      expect.arrayContaining([
        [1, undefined],
        [2, undefined],
      ]),
    );
    expect(r.code).toBe(0);
    // The first question was answered before (by alice): the batch takes that run, as it always does.
    const reports = JSON.parse((await as('carol', ['reports', '--user', 'carol', '--json'])).stdout);
    expect(reports.map((x: { question: string }) => x.question)).toEqual([
      'Who approves\ufffd refunds today?',
    ]);
  });

  it('says in one line, exit 2, when the server cannot be reached, and never shows the password', async () => {
    const r = await runCli(['notes', 'list'], {
      env: { AGENT_DATABASE_URL: 'postgres://team:s3cret@127.0.0.1:1/agent' },
    });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^agent: .*127\.0\.0\.1:1/);
    expect(r.stderr).not.toContain('s3cret');
  });
});
