import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { type CliResult, runCli, startCli, tempDb } from '../support/cli.js';
import { type RecordedRequest, sse, startFakeServer } from '../support/fake-server.js';
import { contentFolder } from '../support/research-world.js';
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
/** Which document an extraction request is about: "Doc 3". */
const docOf = (req: RecordedRequest) => /Source: (Doc \d)/.exec(promptOf(req))?.[1];

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

async function world(): Promise<World & { server: NonNullable<typeof server> }> {
  const w: World = { held: new Set(), failWrite: false };
  const s = await startFakeServer([], async (req) => {
    const body = req.body as { model: string };
    const system = systemOf(req);
    if (system.includes('You plan research'))
      return sse(
        chatSse(
          { text: JSON.stringify({ documents: Object.keys(DOCS).map((d) => d.slice(0, -3)) }) },
          body.model,
        ),
      );
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

function setup(w: { server: { url: string } }) {
  const db = tempDb();
  const content = contentFolder(DOCS);
  const env = { OPENAI_BASE_URL: `${w.server.url}/v1`, AGENT_DB: db };
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

/** Waits until the run has recorded this many extractions. */
async function extractionsRecorded(db: string, count: number, exited: Promise<CliResult>): Promise<void> {
  let gone = false;
  exited.then(() => {
    gone = true;
  });
  for (const until = Date.now() + 15_000; Date.now() < until && !gone; ) {
    try {
      const [row] = query<{ n: number }>(db, 'SELECT COUNT(*) AS n FROM run_sources WHERE facts IS NOT NULL');
      if (row!.n >= count) return;
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
    await extractionsRecorded(db, 2, run.done);
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
  }, 60_000);
});
