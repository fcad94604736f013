import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, expect, it } from 'vitest';
import { runCli, tempDb } from '../support/cli.js';
import { type RecordedRequest, sse, startFakeServer } from '../support/fake-server.js';
import { hasScript, shellWord, terminalAgent } from '../support/pty.js';
import { contentFolder } from '../support/research-world.js';
import { chatSse } from '../support/sse-builders.js';

// Ctrl-C typed on a real terminal while research shows its spinner and extractions are in flight: the
// terminal sends SIGINT to the whole foreground group, and ora's cursor handling listens for it too.

const DOCS = Object.fromEntries(
  [1, 2, 3].map((i) => [`doc${i}.md`, `# Doc ${i}\n\nLimit ${i} is $${i}00.\n`]),
);
const systemOf = (req: RecordedRequest) =>
  ((req.body as { messages?: { content: string }[] })?.messages?.[0]?.content ?? '') as string;
const isExtract = (req: RecordedRequest) => systemOf(req).includes('You extract facts');

const MODELS = ['research', '--provider', 'openai-compatible', '--small-model', 's', '--large-model', 'l'];

let server: Awaited<ReturnType<typeof startFakeServer>>;
afterEach(() => server?.close());

/**
 * A model that plans every document, then never finishes an extraction: Doc 1's reply starts and stalls
 * (its usage is known only as an estimate), the others are never answered at all.
 */
async function stallingModel(onExtract: (count: number) => void) {
  let extracts = 0;
  server = await startFakeServer([], async (req) => {
    const model = (req.body as { model: string }).model;
    if (systemOf(req).includes('You plan research'))
      return sse(chatSse({ text: JSON.stringify({ documents: ['doc1', 'doc2', 'doc3'] }) }, model));
    if (isExtract(req)) {
      onExtract(++extracts);
      if (JSON.stringify(req.body).includes('Doc 1')) {
        const begun = chatSse({ text: '- Limit 1 is' }, model).split('\n\n').slice(0, 2).join('\n\n');
        return { ...sse(begun), hang: true };
      }
      await new Promise(() => {});
    }
    return sse(chatSse({ text: 'Unexpected.' }, model));
  });
  return server;
}

function ledger(db: string) {
  const conn = new Database(db, { readonly: true });
  try {
    return conn
      .prepare('SELECT step, cancelled, input_tokens AS input FROM usage_ledger ORDER BY id')
      .all() as { step: string; cancelled: number; input: number }[];
  } finally {
    conn.close();
  }
}

it.skipIf(!hasScript)(
  'Ctrl-C on a terminal stops the spinner, records the calls in flight as cancelled, says how to resume, exits 130',
  async () => {
    let inFlight!: () => void;
    const allSent = new Promise<void>((resolve) => {
      inFlight = resolve;
    });
    const s = await stallingModel((n) => n === 3 && inFlight());
    const db = tempDb();
    const env = { OPENAI_BASE_URL: `${s.url}/v1`, AGENT_DB: db };
    const term = terminalAgent(
      [...MODELS, '--content', contentFolder(DOCS), shellWord('What are the limits?')],
      env,
      { columns: 100 },
    );
    await allSent;
    // The spinner is drawn (ora hides the cursor): this is the case a signal sent by hand did not cover.
    await term.waitFor(/\x1b\[\?25l/);
    term.type('\x03');
    expect(await term.exited).toBe(130);
    expect(term.out()).toMatch(/agent: Cancelled\. Resume it with: agent research --resume 1\r?\n/);
    // The cursor is shown again.
    expect(term.out()).toMatch(/\x1b\[\?25h/);

    const rows = ledger(db);
    expect(rows[0]).toMatchObject({ step: 'plan', cancelled: 0 });
    const extracts = rows.filter((r) => r.step === 'extract');
    expect(extracts).toHaveLength(3);
    for (const r of extracts) expect(r).toMatchObject({ cancelled: 1, input: expect.any(Number) });
    expect(extracts.every((r) => r.input > 0)).toBe(true);

    const listed = await runCli(['reports', '--json'], { env });
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ id: 1, status: 'unfinished' })]);
  },
);

it.skipIf(!hasScript)('a second Ctrl-C exits at once, with status 130', async () => {
  let inFlight!: () => void;
  const allSent = new Promise<void>((resolve) => {
    inFlight = resolve;
  });
  const s = await stallingModel((n) => n === 3 && inFlight());
  const env = { OPENAI_BASE_URL: `${s.url}/v1`, AGENT_DB: tempDb() };
  const term = terminalAgent(
    [...MODELS, '--content', contentFolder(DOCS), shellWord('What are the limits?')],
    env,
    { columns: 100 },
  );
  await Promise.race([allSent, term.exited]);
  term.type('\x03\x03');
  expect(await term.exited).toBe(130);
});

it.skipIf(!hasScript)(
  '--batch: Ctrl-C on a terminal records the calls in flight as cancelled, says how to go on, exits 130',
  async () => {
    let inFlight!: () => void;
    const allSent = new Promise<void>((resolve) => {
      inFlight = resolve;
    });
    const s = await stallingModel((n) => n === 3 && inFlight());
    const db = tempDb();
    const env = { OPENAI_BASE_URL: `${s.url}/v1`, AGENT_DB: db };
    const batch = join(contentFolder({ 'q.txt': 'What are the limits?\n' }), 'q.txt');
    const term = terminalAgent([...MODELS, '--content', contentFolder(DOCS), '--batch', batch], env, {
      columns: 100,
    });
    await Promise.race([allSent, term.exited]);
    term.type('\x03');
    expect(await term.exited).toBe(130);
    expect(term.out()).toMatch(
      /agent: Cancelled\. Run the same batch again to continue: the questions already answered are skipped\./,
    );
    const extracts = ledger(db).filter((r) => r.step === 'extract');
    expect(extracts).toHaveLength(3);
    expect(extracts.every((r) => r.cancelled === 1 && r.input > 0)).toBe(true);
  },
);
