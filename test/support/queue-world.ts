import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';
import { runCli } from './cli.js';
import { json, type RecordedRequest, sse, startFakeServer } from './fake-server.js';
import { startTestDatabase, type TestDatabase } from './pg.js';
import { contentFolder, LOOPBACK_RESEARCH, prices } from './research-world.js';
import { chatSse } from './sse-builders.js';

// The world of the queue's tests (test/team/queue*.test.ts): a content folder of three documents, a
// loopback model (OpenAI Chat Completions) that answers by step, can refuse a question, rate-limit it, or
// hold one extraction until released, and the environment for `agent research --queue` and `agent worker`.

export const DOCS = Object.fromEntries(
  Array.from({ length: 3 }, (_, i) => [
    `doc${i + 1}.md`,
    `# Doc ${i + 1}\n\nLimit ${i + 1} is $${i + 100}.\n`,
  ]),
);
export const content = contentFolder(DOCS);
export const question = (n: number) => `Question ${n}: what is limit ${n}?`;

/** A promise and the function that resolves it. */
export function resolver(): { promise: Promise<void>; arrived: () => void } {
  let arrived!: () => void;
  const promise = new Promise<void>((resolve) => {
    arrived = resolve;
  });
  return { promise, arrived };
}

export interface QueueModel {
  url: string;
  requests: RecordedRequest[];
  /** Questions whose plan call is refused (HTTP 400). */
  refuse: Set<string>;
  /** Questions whose plan call gets 429 this many more times. */
  limit: Map<string, number>;
  /** When set, the extraction of Doc 3 for this question waits: `reached` resolves as it arrives. */
  hold?: { question: string; reached: ReturnType<typeof resolver>; release: ReturnType<typeof resolver> };
  /** Model calls in flight now, and the most at once. */
  inFlight: number;
  maxInFlight: number;
  /** Output tokens per step, near the caps the spending cap's worst cases assume (default: few). */
  output?: { plan: number; extract: number; write: number };
  close(): Promise<void>;
}

export async function startQueueModel(): Promise<QueueModel> {
  const m = {
    refuse: new Set<string>(),
    limit: new Map<string, number>(),
    inFlight: 0,
    maxInFlight: 0,
  } as QueueModel;
  const server = await startFakeServer([], async (req: RecordedRequest) => {
    m.inFlight++;
    m.maxInFlight = Math.max(m.maxInFlight, m.inFlight);
    try {
      // Long enough for calls of several workers to overlap, unless something keeps them apart.
      await new Promise((r) => setTimeout(r, 20));
      return await reply(req);
    } finally {
      m.inFlight--;
    }
  });
  async function reply(req: RecordedRequest) {
    const body = req.body as { model: string; messages: { content: string }[] };
    const system = body.messages[0]?.content ?? '';
    const text = JSON.stringify(body);
    const q = /Question \d+: what is limit \d+\?/.exec(text)?.[0] ?? '?';
    if (system.includes('You plan research')) {
      if (m.refuse.has(q)) return json(400, { error: { message: 'this question is refused' } });
      const left = m.limit.get(q) ?? 0;
      if (left > 0) {
        m.limit.set(q, left - 1);
        return json(429, { error: { message: 'slow down' } }, { 'retry-after': '0' });
      }
      const documents = Object.keys(DOCS).map((d) => d.slice(0, -3));
      const usage = m.output && { input: 100, output: m.output.plan };
      return sse(chatSse({ text: JSON.stringify({ documents }), usage }, body.model));
    }
    if (system.includes('You extract facts')) {
      if (m.hold && q === m.hold.question && text.includes('Doc 3')) {
        m.hold.reached.arrived();
        await m.hold.release.promise;
      }
      return sse(
        chatSse({ text: '- a limit', usage: { input: 500, output: m.output?.extract ?? 50 } }, body.model),
      );
    }
    const usage = m.output && { input: 100, output: m.output.write };
    return sse(chatSse({ text: 'The limit is listed [1].', usage }, body.model));
  }
  m.url = server.url;
  m.requests = server.requests;
  m.close = () => server.close();
  return m;
}

/** The environment of every command: the team database, the loopback model, short leases. */
export const queueEnv = (db: TestDatabase, model: QueueModel, extra: Record<string, string> = {}) => ({
  AGENT_DATABASE_URL: db.url,
  AGENT_USER: 'tester',
  OPENAI_BASE_URL: `${model.url}/v1`,
  AGENT_PRICES: prices({ small: { input: 1, output: 10 }, large: { input: 1, output: 10 } }),
  AGENT_QUEUE_LEASE: '2',
  ...extra,
});

/** `agent research --batch FILE --queue` arguments with the loopback models and the test folder. */
export const queueArgs = (file: string, ...more: string[]) => [
  ...LOOPBACK_RESEARCH,
  '--content',
  content,
  '--batch',
  file,
  '--queue',
  ...more,
];

export function batchFile(lines: string[]): string {
  const path = join(mkdtempSync(join(tmpdir(), 'agent-queue-')), 'questions.txt');
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

export const jsonLines = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

/**
 * A test file's team database (started once) and a fresh loopback model for each test, with the CLI as
 * the tests run it: `world.db` and `world.model` are set once the hooks have run.
 */
export function queueWorld() {
  const world = {} as { db: TestDatabase; model: QueueModel };
  beforeAll(async () => {
    world.db = await startTestDatabase();
  });
  afterAll(() => world.db?.stop());
  beforeEach(async () => {
    world.model = await startQueueModel();
  });
  afterEach(() => world.model.close());
  const cli = (args: string[], extra: Record<string, string> = {}) =>
    runCli(args, { env: queueEnv(world.db, world.model, extra) });
  /** Queues the lines as a batch; its id. */
  const enqueue = async (lines: string[], ...more: string[]) => {
    const r = await cli(queueArgs(batchFile(lines), ...more));
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.code).toBe(0);
    return r.stdout.trim();
  };
  const status = async (id: string, extra: Record<string, string> = {}) =>
    JSON.parse((await cli(['batch', 'status', id, '--json'], extra)).stdout);
  return { world, cli, enqueue, status };
}
