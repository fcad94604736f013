import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, UsageError } from '../../../src/errors.js';
import { MINE } from '../../../src/store/postgres/cache.js';
import { schemaWarning } from '../../../src/store/postgres/security.js';
import type { PostgresStore } from '../../../src/store/postgres/store.js';
import { deflateText, textHash } from '../../../src/store/texts.js';
import { openTestStore, startTestDatabase, type TestDatabase } from '../../support/pg.js';
import { dropRoles, type Member, makeTeamRoles, member } from '../../support/pg-roles.js';

// The team's set-up as shipped (db/roles.sql, then the migrations and db/grants.sql as the owner) with
// each person a role of their own, and the attacks of issue 28 made by a member with plain SQL: each is
// refused by the server, or leaves the other's rows as they were.

const PEOPLE = ['t_alice', 't_bob', 't_team'];

let db: TestDatabase;
let owner: PostgresStore | undefined;
let alice: Member | undefined;
let bob: Member | undefined;

const exchange = (text: string) => ({
  provider: 'p',
  model: 'm',
  messages: [
    { role: 'user' as const, content: text },
    {
      role: 'assistant' as const,
      content: [{ type: 'text' as const, text: 'ok' }],
      provider: 'p',
      model: 'm',
      usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
      stopReason: 'stop' as const,
    },
  ],
});

const usage = { input: 10, output: 10, cacheRead: 0, cacheWrite: 0, reasoning: 0 };
const entry = (runId: string) => ({
  command: 'chat' as const,
  runId,
  step: 'chat',
  provider: 'openai',
  model: 'gpt-4o-mini',
  usage,
});

beforeAll(async () => {
  db = await startTestDatabase();
});
/** Closes what the last test opened (each is closed once). */
async function closeAll(): Promise<void> {
  const open = [alice, bob, owner];
  alice = bob = owner = undefined;
  for (const one of open) await one?.close();
}

afterAll(async () => {
  await closeAll();
  if (db) await dropRoles(db, PEOPLE);
  await db?.stop();
});

describe('a team set up as docs/team.md says', () => {
  beforeEach(async () => {
    await closeAll();
    await db.reset();
  });

  it('warns while every role can CREATE in the schema, and not once db/roles.sql has revoked it', async () => {
    owner = await openTestStore(db, 'owner');
    // The test database's schema is as PostgreSQL 14 makes it: everyone may create there.
    expect(await schemaWarning(owner!.db)).toMatch(
      /^every role can create objects in the schema "public".*REVOKE CREATE ON SCHEMA public FROM PUBLIC;$/,
    );
    expect((await owner!.status()).warnings?.join('\n')).toMatch(/every role can create/);
    await makeTeamRoles(db);
    expect(await schemaWarning(owner!.db)).toBeUndefined();
  });

  it('tells a member on a database not migrated yet to ask the admin', async () => {
    await makeTeamRoles(db);
    alice = await member(db, 't_alice');
    const failure = await alice!.as(async () => 'opened').catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ConfigError);
    expect((failure as Error).message).toMatch(/ask your admin to run `agent db migrate`/);
  });

  describe('with two members', () => {
    beforeEach(async () => {
      await makeTeamRoles(db);
      owner = await openTestStore(db, 'owner');
      alice = await member(db, 't_alice', { user: 'Alice Label' });
      bob = await member(db, 't_bob');
    });

    it('records the role as the author and keeps each one’s chats private', async () => {
      const id = await alice!.as(async (store) => {
        // The role is the author where each person has one, whatever AGENT_USER says.
        expect(store.user).toBe('t_alice');
        await store.ledger.record(entry('run-a'));
        return store.sessions.saveExchange(undefined, 'run-a', exchange('alice private'));
      });
      await bob!.as(async (store, sql) => {
        expect(await store.sessions.get(id, { all: true })).toBeUndefined();
        expect(await store.sessions.messages(id)).toEqual([]);
        expect(await sql('SELECT * FROM chat_messages')).toEqual([]);
        // The ledger is the team's to read.
        expect((await store.ledger.report({ by: 'user' })).rows.map((r) => r.key)).toEqual(['t_alice']);
      });
      expect(await alice!.as((store) => store.sessions.messages(id))).toHaveLength(2);
      // A member's `agent db migrate` on an up-to-date database has nothing to do, and says so.
      expect(await bob!.as((store) => store.migrate())).toEqual([]);
    });

    it('refuses a member’s plain SQL against another’s rows', async () => {
      const { note, run, session } = await alice!.as(async (store) => {
        await store.ledger.record(entry('run-a'));
        return {
          note: (await store.notes.add({ content: 'alice note' })).id,
          run: await store.runs.save({ question: 'Q', mode: 'model', answer: 'A', costUsd: 1, result: {} }),
          session: await store.sessions.saveExchange(undefined, 'run-a', exchange('hi')),
        };
      });
      await bob!.as(async (_store, sql) => {
        const refused = (text: string, params?: unknown[]) =>
          expect(sql(text, params)).rejects.toThrow(/permission denied|row-level security|violates/);
        // The ledger is append-only; its schema's version read-only.
        await refused('UPDATE usage_ledger SET cost_usd = 0');
        await refused('DELETE FROM usage_ledger');
        await refused("INSERT INTO schema_migrations VALUES ('999_evil', 0)");
        // No row under another's name: the author is the connecting role.
        await refused(
          `INSERT INTO usage_ledger (ts, command, run_id, step, provider, model, input_tokens, cache_read_tokens,
             cache_write_tokens, output_tokens, reasoning_tokens, cost_usd, owner_role)
           VALUES (1, 'chat', 'x', 'chat', 'p', 'm', 0, 0, 0, 0, 0, 999, 't_alice')`,
        );
        await sql(
          `INSERT INTO usage_ledger (ts, command, run_id, step, provider, model, input_tokens, cache_read_tokens,
             cache_write_tokens, output_tokens, reasoning_tokens, cost_usd, created_by)
           VALUES (1, 'chat', 'x', 'chat', 'p', 'm', 0, 0, 0, 0, 0, 999, 't_alice')`,
        );
        // Another's report and note stay as they are.
        expect(
          await sql("UPDATE research_runs SET answer = 'forged' WHERE id = $1 RETURNING id", [run]),
        ).toEqual([]);
        await refused("UPDATE research_runs SET created_by = 'x'");
        expect(await sql('DELETE FROM notes WHERE id = $1 RETURNING id', [note])).toEqual([]);
        expect(await sql('DELETE FROM research_runs WHERE id = $1 RETURNING id', [run])).toEqual([]);
        await refused('INSERT INTO run_texts (run_id, n, hash) VALUES ($1, 9, $2)', [run, 'h']);
        // A message into another's session (a foreign key ignores row-level security).
        await refused(
          `INSERT INTO chat_messages (session_id, seq, exchange, provider, model, message)
           VALUES ($1, 2, 2, 'p', 'm', '{"role":"user","content":"planted"}')`,
          [session],
        );
        // Nothing can be planted in the schema.
        await refused(
          'CREATE FUNCTION unnest(text[]) RETURNS SETOF text LANGUAGE sql AS $$ SELECT 1::text $$',
        );
        await refused('CREATE TABLE planted (x int)');
      });
      const rows = await db.sql<{ by: string; cost: number }>(
        'SELECT created_by AS by, cost_usd AS cost FROM usage_ledger ORDER BY id',
      );
      expect(rows.map((r) => r.by)).toEqual(['t_alice', 't_bob']);
      expect((await owner!.runs.get(run))?.answer).toBe('A');
      // Alice's next exchange is saved as ever.
      await alice!.as((store) => store.sessions.saveExchange(session, 'run-a', exchange('again')));
      expect(await alice!.as((store) => store.sessions.messages(session))).toHaveLength(4);
    });

    it('refuses through the store to delete another’s note or report, as a usage error', async () => {
      const { note, run } = await alice!.as(async (store) => ({
        note: (await store.notes.add({ content: 'alice note' })).id,
        run: await store.runs.save({ question: 'Q', mode: 'model', answer: 'A', costUsd: 1, result: {} }),
      }));
      await bob!.as(async (store) => {
        const noteFailure = await store.notes.delete(note).catch((e: unknown) => e);
        expect(noteFailure).toBeInstanceOf(UsageError);
        expect((noteFailure as UsageError).exitCode).toBe(2);
        expect((noteFailure as Error).message).toBe(
          `Note #${note} is t_alice's: only its author can delete it (you are t_bob).`,
        );
        await expect(store.runs.delete(run)).rejects.toThrow(/^Report #\d+ is t_alice's/);
        expect(await store.notes.delete(99_999)).toBe(false);
      });
      expect(await alice!.as((store) => store.notes.delete(note))).toBe(true);
      expect(await alice!.as((store) => store.runs.delete(run))).toBe(true);
    });

    it('keeps each one’s page and extraction caches their own: a planted page or fact is never read', async () => {
      const page = (text: string) => ({
        url: 'https://example.com/refunds',
        finalUrl: 'https://example.com/refunds',
        fetchedAt: Date.now(),
        etag: null,
        lastModified: null,
        policy: {},
        extractor: 3,
        title: 'Refunds',
        kind: 'html',
        pages: null,
        text,
      });
      const key = { sourceHash: 'h', question: 'What is the refund limit?', model: 'm', promptVersion: 1 };
      // Bob plants a page and facts where Alice's research would look them up.
      await bob!.as(async (store) => {
        await store.cache.putPage(page('Refunds up to $900.'));
        await store.cache.putExtraction(key, '- Refunds up to $900 [1]', 1);
      });
      await alice!.as(async (store, sql) => {
        expect(await store.cache.getPage('https://example.com/refunds')).toBeUndefined();
        expect(await store.cache.getExtraction(key)).toBeUndefined();
        // Alice caches the same URL and key beside Bob's, and reads her own.
        await store.cache.putPage(page('Refunds up to $200.'));
        await store.cache.putExtraction(key, '- Refunds up to $200 [1]', 2);
        expect((await store.cache.getPage('https://example.com/refunds'))?.text).toBe('Refunds up to $200.');
        expect(await store.cache.getExtraction(key)).toBe('- Refunds up to $200 [1]');
        // Plain SQL cannot reach Bob's rows either.
        expect(await sql('SELECT url FROM page_cache')).toHaveLength(1);
        await sql('UPDATE extraction_cache SET facts = $1', ['- rewritten']);
      });
      await bob!.as(async (store) => {
        expect(await store.cache.getExtraction(key)).toBe('- Refunds up to $900 [1]');
      });
    });

    it('finds a member’s cached page or facts through the key (owner first), not by reading the whole cache', async () => {
      await alice!.as(async (_store, sql) => {
        // Without sequential scans the planner shows what the condition can use; before, owner_role
        // (compared with session_user in its "C" collation) was only a filter over the whole index.
        await sql('SET enable_seqscan = off');
        try {
          const plan = async (text: string) =>
            (await sql<{ 'QUERY PLAN': string }>(`EXPLAIN ${text}`)).map((r) => r['QUERY PLAN']).join('\n');
          const extraction = await plan(
            `SELECT facts FROM extraction_cache WHERE source_hash = 'h' AND question = 'q' AND model = 'm'
               AND prompt_version = 1 AND ${MINE}`,
          );
          expect(extraction).toMatch(/Index Cond: \(\(owner_role = /);
          expect(await plan(`SELECT 1 FROM page_cache WHERE url = 'u' AND ${MINE}`)).toMatch(
            /Index Cond: \(\(owner_role = /,
          );
        } finally {
          await sql('RESET enable_seqscan');
        }
      });
    });

    it('never shows a source text planted under the hash of one a run stores later', async () => {
      const real = 'Refunds up to $200 need no approval.';
      await bob!.as((_store, sql) =>
        sql('INSERT INTO source_texts (hash, chars, body) VALUES ($1, 3, $2)', [
          textHash(real),
          deflateText('Refunds up to $900 need no approval.'),
        ]),
      );
      const run = await alice!.as((store) =>
        store.runs.save({
          question: 'Q',
          mode: 'model',
          answer: 'A [1].',
          costUsd: 0,
          result: {},
          texts: [{ n: 1, text: real }],
        }),
      );
      expect(await alice!.as((store) => store.runs.texts(run))).toEqual(new Map());
    });

    it('on a shared role, records AGENT_USER as a label of at most 64 characters, and says chats are shared', async () => {
      const team = await member(db, 't_team', { group: 'agent_shared', user: 'x'.repeat(100_000) });
      try {
        await team.as(async (store) => {
          expect(store.user).toHaveLength(64);
          await store.ledger.record(entry('run-t'));
          await store.sessions.saveExchange(undefined, 'run-t', exchange('shared'));
        });
        const other = await member(db, 't_team', { group: 'agent_shared', user: 'carol' });
        await other.as(async (store) => {
          expect(await store.privacyWarning()).toMatch(/^The role "t_team" is shared with 1 other person/);
        });
        await other.close();
        const [row] = await db.sql<{ n: number }>('SELECT length(created_by) AS n FROM usage_ledger');
        expect(row?.n).toBe(64);
      } finally {
        await team.close();
      }
    });
  });

  it('never calls a function planted in the app’s schema, even where members may create there', async () => {
    owner = await openTestStore(db, 'owner');
    await db.sql(`CREATE TABLE public.stolen (m text);
      CREATE FUNCTION public.unnest(text[]) RETURNS SETOF text LANGUAGE sql
        AS $$ INSERT INTO public.stolen SELECT x FROM pg_catalog.unnest($1) x RETURNING m $$`);
    // The attack works on an unqualified call, pg_catalog first on the path or not: text[] is a better
    // match than pg_catalog.unnest(anyarray).
    await db.sql('SET search_path = pg_catalog, public');
    await db.sql('SELECT count(*) FROM unnest($1::text[])', [['probe']]);
    expect(await db.sql('SELECT m FROM public.stolen')).toEqual([{ m: 'probe' }]);
    await db.sql('DELETE FROM public.stolen');
    const id = await owner.sessions.saveExchange(undefined, 'run-o', exchange('my secret'));
    expect(await owner!.sessions.messages(id)).toHaveLength(2);
    await owner!.index.searchPassages('/nowhere', ['secret'], 5);
    expect(await db.sql('SELECT * FROM public.stolen')).toEqual([]);
  });

  it('warns a superuser that every chat is visible to it', async () => {
    owner = await openTestStore(db, 'owner');
    const [me] = await db.sql<{ s: boolean }>(
      'SELECT rolsuper AS s FROM pg_roles WHERE rolname = session_user',
    );
    if (me?.s) expect(await owner!.privacyWarning()).toMatch(/^You connect as "\w+", a superuser/);
  });
});
