import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { type CliResult, runCli, startCli, tempDb } from '../support/cli.js';
import { type RecordedRequest, sse, startFakeServer } from '../support/fake-server.js';
import { contentFolder, fakeWeb } from '../support/research-world.js';
import { chatSse } from '../support/sse-builders.js';

// Resumable runs, with real processes: the built CLI against a loopback model that answers some
// extractions and holds the others back, killed (SIGKILL, SIGINT) or failed (an API error after the
// SDK's retries) midway, then continued with --resume.

const DOCS = Object.fromEntries(
  Array.from({ length: 5 }, (_, i) => [
    `doc${i + 1}.md`,
    `# Doc ${i + 1}\n\nLimit ${i + 1} is $${i + 100}.\n`,
  ]),
);

const systemOf = (req: RecordedRequest) =>
  ((req.body as { messages?: { content: string }[] })?.messages?.[0]?.content ?? '') as string;
const promptOf = (req: RecordedRequest) => JSON.stringify((req.body as { messages: unknown }).messages);
const isExtract = (req: RecordedRequest) => systemOf(req).includes('You extract facts');
/** Which document or page an extraction request is about: "Doc 3", "Page B". */
const docOf = (req: RecordedRequest) => /Source: ((?:Doc|Page) \w)/.exec(promptOf(req))?.[1];
const ALL_DOCUMENTS = { documents: Object.keys(DOCS).map((d) => d.slice(0, -3)) };

interface World {
  /** Extractions of these documents are held (never answered) while `hold` is true. */
  held: Set<string>;
  /** The write step fails with HTTP 500 (retried by the SDK, then given up). */
  failWrite: boolean;
}

let server: Awaited<ReturnType<typeof startFakeServer>> | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function world(plan: object = ALL_DOCUMENTS): Promise<World & { server: NonNullable<typeof server> }> {
  const w: World = { held: new Set(), failWrite: false };
  const s = await startFakeServer([], async (req) => {
    const body = req.body as { model: string };
    const system = systemOf(req);
    if (system.includes('You plan research')) return sse(chatSse({ text: JSON.stringify(plan) }, body.model));
    if (isExtract(req)) {
      const doc = docOf(req) ?? '';
      // Held: answered only once the process asking has gone (the server then drops the connection).
      if (w.held.has(doc)) await new Promise(() => {});
      return sse(chatSse({ text: `- ${doc}: limit noted` }, body.model));
    }
    if (w.failWrite)
      return {
        status: 500,
        headers: { 'content-type': 'application/json', 'retry-after-ms': '1' },
        body: '{"error":{"message":"the model is overloaded"}}',
      };
    return sse(chatSse({ text: 'The limits are $100 [1] and $101 [2].' }, body.model));
  });
  server = s;
  return Object.assign(w, { server: s });
}

const MODEL_FLAGS = ['--provider', 'openai-compatible', '--small-model', 'small', '--large-model', 'large'];

function setup(w: { server: { url: string } }, web: Record<string, string> = {}) {
  const db = tempDb();
  const content = contentFolder(DOCS);
  const env = { OPENAI_BASE_URL: `${w.server.url}/v1`, AGENT_DB: db, ...web };
  const args = [...MODEL_FLAGS, '--breadth', '5', '--content', content];
  return {
    db,
    env,
    start: (extra: string[] = []) =>
      startCli(['research', ...args, ...extra, 'What are the limits?'], { env }),
    cli: (...extra: string[]) => runCli(extra, { env }),
  };
}

/** Reads the database file the CLI writes, as another process would. */
function query<T>(db: string, sql: string): T[] {
  const conn = new Database(db, { readonly: true, fileMustExist: true });
  try {
    return conn.prepare(sql).all() as T[];
  } finally {
    conn.close();
  }
}

/** Waits until the run has recorded this many extractions (and, if given, sources read). */
async function extractionsRecorded(
  db: string,
  count: number,
  exited: Promise<CliResult>,
  sources = 0,
): Promise<void> {
  let gone = false;
  exited.then(() => {
    gone = true;
  });
  // Until the rows are there or the process has gone: no deadline of its own (the test's timeout is one).
  while (!gone) {
    try {
      const [row] = query<{ facts: number; read: number }>(
        db,
        'SELECT COUNT(facts) AS facts, COUNT(*) AS read FROM run_sources',
      );
      if (row!.facts >= count && row!.read >= sources) return;
    } catch {
      // Not made yet.
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(
    `the run did not record ${count} extractions: ${JSON.stringify(await Promise.race([exited, 'still running']))}`,
  );
}

describe('agent research --resume', () => {
  it('continues a run killed with SIGKILL, paying only for the extractions it had not made', async () => {
    const w = await world();
    const { db, start, cli } = setup(w);
    w.held = new Set(['Doc 3', 'Doc 4', 'Doc 5']);
    const run = start();
    await extractionsRecorded(db, 2, run.done, 5);
    run.child.kill('SIGKILL');
    expect((await run.done).signal).toBe('SIGKILL');

    const listed = await cli('reports');
    expect(listed.stdout).toMatch(/^#1 .*\(unfinished\) What are the limits\?$/m);
    const unfinished = JSON.parse((await cli('reports', '--json')).stdout);
    expect(unfinished).toEqual([expect.objectContaining({ id: 1, status: 'unfinished' })]);
    const shown = await cli('reports', '--show', '1');
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('5 source(s) read, 2 of them extracted');
    expect(shown.stdout).toContain('Resume it with: agent research --resume 1');

    const before = w.server.requests.length;
    w.held.clear();
    const resumed = await cli('research', '--resume', '1', '--json');
    expect(resumed.stderr).toContain(
      'Resuming run #1: 5 source(s) read and 2 extraction(s) made before are reused.',
    );
    expect(resumed.code).toBe(0);
    const again = w.server.requests.slice(before);
    // No new plan; an extraction only for the three documents that had none; then the write.
    expect(again.some((r) => systemOf(r).includes('You plan research'))).toBe(false);
    expect(again.filter(isExtract).map(docOf).sort()).toEqual(['Doc 3', 'Doc 4', 'Doc 5']);
    const out = JSON.parse(resumed.stdout);
    expect(out.id).toBe(1);
    expect(out.answer).toBe('The limits are $100 [1] and $101 [2].');
    expect(out.sources.map((s: { title: string }) => s.title)).toEqual([
      'Doc 1',
      'Doc 2',
      'Doc 3',
      'Doc 4',
      'Doc 5',
    ]);
    // The whole run's spend: the first attempt's plan and two extractions, then three and the write.
    expect(out.usage.calls).toBe(1 + 2 + 3 + 1);

    const ledger = query<{ run_id: string }>(db, 'SELECT DISTINCT run_id FROM usage_ledger');
    expect(ledger).toHaveLength(1);
    expect(JSON.parse((await cli('reports', '--json')).stdout)).toEqual([
      expect.objectContaining({ id: 1, status: 'done', mode: 'model' }),
    ]);
    // Its progress is gone with the answer; resuming it again is a usage error.
    expect(query(db, 'SELECT * FROM run_sources')).toEqual([]);
    const twice = await cli('research', '--resume', '1');
    expect(twice).toMatchObject({
      code: 2,
      stderr:
        'agent: Research run #1 is finished, so there is nothing to resume: agent reports --show 1 shows it.\n',
    });
  });
});

describe('agent research --resume: how an interrupted run ends', () => {
  it('says how to resume a run cancelled with Ctrl-C (with its --db), and resumes it', async () => {
    const w = await world();
    const { db, env } = setup(w);
    w.held = new Set(['Doc 4', 'Doc 5']);
    const flags = [
      'research',
      '--db',
      db,
      ...MODEL_FLAGS,
      '--breadth',
      '5',
      '--content',
      contentFolder(DOCS),
    ];
    const run = startCli([...flags, 'What are the limits?'], {
      env: { OPENAI_BASE_URL: env.OPENAI_BASE_URL },
    });
    await extractionsRecorded(db, 3, run.done);
    run.child.kill('SIGINT');
    const r = await run.done;
    expect(r.code).toBe(130);
    expect(
      r.stderr.endsWith(`agent: Cancelled. Resume it with: agent research --resume 1 --db ${db}\n`),
    ).toBe(true);

    w.held.clear();
    const before = w.server.requests.length;
    const resumed = await runCli(['research', '--db', db, '--resume', '1'], {
      env: { OPENAI_BASE_URL: env.OPENAI_BASE_URL },
    });
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain('The limits are $100 [1] and $101 [2].');
    expect(resumed.stderr).toContain('Saved as run 1 (agent reports --show 1).');
    expect(w.server.requests.slice(before).filter(isExtract).map(docOf).sort()).toEqual(['Doc 4', 'Doc 5']);
  });

  it('says how to resume a run whose write failed after retries; the resumed run only writes', async () => {
    const w = await world();
    const { start, cli } = setup(w);
    w.failWrite = true;
    const r = await start().done;
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /agent: The write step failed: .*overloaded.* Resume it with: agent research --resume 1\n$/,
    );
    // The SDK tried the write more than once before giving up.
    const writes = w.server.requests.filter(
      (q) => !isExtract(q) && !systemOf(q).includes('You plan research'),
    );
    expect(writes.length).toBeGreaterThan(1);

    w.failWrite = false;
    const before = w.server.requests.length;
    const resumed = await cli('research', '--resume', '1', '--json');
    expect(resumed.code).toBe(0);
    expect(w.server.requests.slice(before).map((q) => (isExtract(q) ? 'extract' : 'other'))).toEqual([
      'other',
    ]);
    expect(JSON.parse(resumed.stdout).sources).toHaveLength(5);
  });

  it('reuses the searches and pages read before: none is searched or fetched again', async () => {
    const w = await world({ documents: [], searches: ['hotel limits'] });
    const page = (title: string) => ({
      body: `<html><head><title>${title}</title></head><body><main><p>${title} says the limit is $300.</p></main></body></html>`,
    });
    const web = await fakeWeb(
      { 'hotel limits': ['/a', '/b'] },
      { '/a': page('Page A'), '/b': page('Page B') },
    );
    try {
      const { db, start, cli } = setup(w, web.env);
      w.held = new Set(['Page B']);
      const run = start();
      await extractionsRecorded(db, 1, run.done);
      run.child.kill('SIGKILL');
      await run.done;
      expect(web.answered.map((a) => a.query)).toEqual(['hotel limits']);
      expect([web.hits.get('/a'), web.hits.get('/b')]).toEqual([1, 1]);

      w.held.clear();
      const before = w.server.requests.length;
      const resumed = await cli('research', '--resume', '1', '--json');
      expect(resumed.code).toBe(0);
      expect(web.answered).toHaveLength(1);
      expect([web.hits.get('/a'), web.hits.get('/b')]).toEqual([1, 1]);
      expect(w.server.requests.slice(before).filter(isExtract).map(docOf)).toEqual(['Page B']);
      const out = JSON.parse(resumed.stdout);
      expect(out.sources.map((s: { title: string; read: string }) => [s.title, s.read])).toEqual([
        ['Page A', 'read'],
        ['Page B', 'read'],
      ]);
    } finally {
      await web.server.close();
    }
  });
});

describe('agent research --resume: what it refuses', () => {
  it('a run another live process is continuing (exit 1); deleting an unfinished run drops its progress', async () => {
    const w = await world();
    const { db, start, cli } = setup(w);
    w.held = new Set(['Doc 5']);
    const run = start();
    await extractionsRecorded(db, 4, run.done);
    const busy = await cli('research', '--resume', '1');
    expect(busy.code).toBe(1);
    expect(busy.stderr).toMatch(
      /^agent: Research run #1 is being continued by another process \(pid \d+ on .+\): wait for it to end\.\n$/,
    );
    run.child.kill('SIGKILL');
    await run.done;
    const deleted = await cli('reports', '--delete', '1');
    expect(deleted).toMatchObject({ code: 0, stdout: 'Deleted research run #1.\n' });
    for (const table of ['run_progress', 'run_plans', 'run_sources', 'source_texts'])
      expect(query(db, `SELECT * FROM ${table}`), table).toEqual([]);
  });

  it('a missing run, and flags that would change the run, as usage errors before any model call', async () => {
    const w = await world();
    const { cli } = setup(w);
    const missing = await cli('research', ...MODEL_FLAGS, '--resume', '7');
    expect(missing).toMatchObject({
      code: 2,
      stderr: 'agent: There is no research run #7. `agent reports` lists the runs with their numbers.\n',
    });
    const clash = await cli('research', '--resume', '1', '--depth', '2', '--site', 'example.com', 'Why?');
    expect(clash).toMatchObject({
      code: 2,
      stderr:
        'agent: --resume continues run #1 with the question and settings it was started with: drop a question, --depth, --site.\n',
    });
    const none = await cli('research');
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^agent: Ask a question/);
    expect(w.server.requests).toHaveLength(0);
  });
});
