import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { recordCall } from '../../src/store/sqlite/ledger.js';
import type { Usage } from '../../src/types.js';
import { runCli, tempDb } from '../support/cli.js';
import { sse, startFakeServer } from '../support/fake-server.js';
import { reply, text } from '../support/scripted-provider.js';
import { chatSse } from '../support/sse-builders.js';
import { sqliteStore } from '../support/stores.js';

// Who made each row: alice and bob share one database; a row from before people were recorded has no one.

const usage = (input: number): Usage => ({ input, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 });
const call = (runId: string, input: number) => ({
  command: 'chat' as const,
  runId,
  step: 'chat',
  provider: 'openai',
  model: 'gpt-4o-mini',
  usage: usage(input),
});
const exchange = (question: string) => ({
  provider: 'openai',
  model: 'gpt-4o-mini',
  messages: [{ role: 'user' as const, content: question }, reply([text(`About ${question}.`)])],
});

/** One person's chat (its first exchange), a model call billed under it, and a saved report. */
async function work(path: string, user: string, question: string, tokens: number, report: string) {
  const store = await sqliteStore(path, user);
  const session = await store.sessions.saveExchange(undefined, `chat-${user}`, exchange(question));
  await store.ledger.record(call(`chat-${user}`, tokens));
  const run = await store.runs.save({ question: report, mode: 'model', answer: 'a', costUsd: 0, result: {} });
  return { store, session, run };
}

/** alice: a chat, a report, 1M tokens; bob: two chats, a report, 2M tokens; nobody: a chat and 4M tokens. */
async function shared() {
  const path = tempDb();
  const alice = await work(path, 'alice', 'alice question', 1_000_000, 'Refund limit?');
  await alice.store.close();
  const bob = await work(path, 'bob', 'bob question', 2_000_000, 'Hotel limit?');
  // Kept before people were recorded: no one's.
  bob.store.db.prepare('UPDATE chat_sessions SET created_by = NULL WHERE id = ?').run(bob.session);
  recordCall(bob.store.db, call('chat-old', 4_000_000));
  const second = await bob.store.sessions.saveExchange(undefined, 'chat-b2', exchange('bob second'));
  await bob.store.close();
  const ids = { alice: alice.session, aliceRun: alice.run, bob: second, bobRun: bob.run, old: bob.session };
  const as = (user: string, args: string[], input?: string) =>
    runCli(['--db', path, ...args], { env: { AGENT_USER: user }, input });
  return { path, ids, as };
}

describe('people sharing a database', () => {
  it('agent sessions lists only your own (and no one’s) unless --all, with whose each is', async () => {
    const { ids, as } = await shared();
    const mine = await as('alice', ['sessions', '--json']);
    expect(mine.code).toBe(0);
    const listed = JSON.parse(mine.stdout) as { id: number; user: string }[];
    expect(listed.map((s) => [s.id, s.user]).sort()).toEqual(
      [
        [ids.alice, 'alice'],
        [ids.old, ''],
      ].sort(),
    );
    const all = await as('alice', ['sessions', '--all']);
    expect(all.code).toBe(0);
    expect(all.stdout).toMatch(new RegExp(`#${ids.bob}\\s+bob\\s`));
    expect(all.stdout).toMatch(new RegExp(`#${ids.old}\\s+unknown\\s`));
    expect((await as('bob', ['sessions'])).stdout).not.toContain('alice question');
  });

  it('another person’s session can be shown, not deleted (exit 2)', async () => {
    const { ids, as } = await shared();
    const shown = await as('alice', ['sessions', '--show', String(ids.bob)]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('bob second');
    const refused = await as('alice', ['sessions', '--delete', String(ids.bob)]);
    expect(refused).toMatchObject({ code: 2, stdout: '' });
    expect(refused.stderr).toBe(`agent: Chat session #${ids.bob} is bob's: only they can delete it.\n`);
    expect((await as('bob', ['sessions', '--delete', String(ids.bob)])).code).toBe(0);
  });

  it('agent cost --by user adds up each person’s calls; old calls are unknown', async () => {
    const { as } = await shared();
    const r = await as('alice', ['cost', '--by', 'user', '--json']);
    expect(r.code).toBe(0);
    const rows = (JSON.parse(r.stdout) as { rows: { key: string; inputTokens: number }[] }).rows;
    expect(rows.map((x) => [x.key, x.inputTokens])).toEqual([
      ['unknown', 4_000_000],
      ['bob', 2_000_000],
      ['alice', 1_000_000],
    ]);
    const table = await as('alice', ['cost', '--by', 'user']);
    expect(table.stdout).toMatch(/^USER\s+CALLS/);
    expect((await as('alice', ['cost', '--by', 'person'])).code).toBe(2);
  });

  it('agent reports --user lists that person’s runs, with "user" in JSON', async () => {
    const { ids, as } = await shared();
    const bobs = JSON.parse((await as('alice', ['reports', '--user', 'bob', '--json'])).stdout);
    expect(bobs).toEqual([
      expect.objectContaining({ id: ids.bobRun, question: 'Hotel limit?', user: 'bob' }),
    ]);
    const all = JSON.parse((await as('alice', ['reports', '--json'])).stdout) as { user: string }[];
    expect(all.map((x) => x.user).sort()).toEqual(['alice', 'bob']);
    const none = await as('alice', ['reports', '--user', 'carol']);
    expect(none).toMatchObject({ code: 0, stdout: 'No research runs saved by carol.\n' });
    const shown = JSON.parse((await as('bob', ['reports', '--show', String(ids.aliceRun), '--json'])).stdout);
    expect(shown).toMatchObject({ id: ids.aliceRun, user: 'alice' });
  });
});

describe('another person’s chat session, continued', () => {
  let server: Awaited<ReturnType<typeof startFakeServer>>;
  beforeEach(async () => {
    server = await startFakeServer();
  });
  afterEach(() => server.close());

  it('says it is read-only, sends its history, and saves the chat as a new session of yours', async () => {
    const { ids, path } = await shared();
    server.queue.push(sse(chatSse({ text: 'You asked about bob second.' })));
    const r = await runCli(
      ['--db', path, 'chat', '--session', String(ids.bob), '--provider', 'openai-compatible', '--model', 'm'],
      { env: { AGENT_USER: 'alice', OPENAI_BASE_URL: `${server.url}/v1` }, input: 'What did bob ask?\n' },
    );
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`Session #${ids.bob} is bob's, so it is read-only`);
    expect(r.stdout).toBe('You asked about bob second.\n');
    const sent = (server.requests[0]!.body as { messages: { role: string; content: unknown }[] }).messages;
    expect(sent.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    // Bob's session is as it was; alice has a new one.
    const store = await sqliteStore(path, 'alice');
    expect((await store.sessions.get(ids.bob, { all: true }))?.exchanges).toBe(1);
    const own = await store.sessions.list();
    expect(own.map((s) => [s.user, s.firstMessage])).toContainEqual(['alice', 'What did bob ask?']);
    await store.close();
  });
});
