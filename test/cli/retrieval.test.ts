import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDb } from '../support/cli.js';
import { type EmbeddingsServer, startEmbeddingsServer } from '../support/embeddings-server.js';

// `agent research --extractive --embeddings …` with nothing but an embeddings server: the --json
// "retrieval" object, the ledger's embed rows, faults and bad flags.

const QUESTION = 'Can I ride my bike to work and claim something for it?';

let server: EmbeddingsServer;
let content: string;
beforeAll(async () => {
  server = await startEmbeddingsServer();
  content = mkdtempSync(join(tmpdir(), 'agent-retrieval-cli-'));
  writeFileSync(
    join(content, 'commuting.md'),
    '# Commuting\n\nStaff who cycle to the office may join the cycle-to-office scheme. The commuting allowance pays 30 pence a mile travelled by bicycle.\n',
  );
  writeFileSync(
    join(content, 'remote.md'),
    '# Remote work\n\nYou may work from home two days a week. Claim a monitor once, and claim internet costs monthly.\n',
  );
  writeFileSync(join(content, 'security.md'), '# Security\n\nBadge code ZX-4471 opens the server room.\n');
});
afterAll(() => server.close());

const env = (extra: Record<string, string> = {}) => ({
  AGENT_DB: tempDb(),
  AGENT_EMBEDDINGS_BASE_URL: server.baseURL,
  AGENT_EMBEDDINGS_TIMEOUT_MS: '15000',
  ...extra,
});

/** `agent research --extractive --json QUESTION` with the fake server's embeddings. */
const extractiveJson = (e: Record<string, string>) =>
  runCli(
    [
      'research',
      '--extractive',
      '--embeddings',
      'openai-compatible:fake-embed',
      '--content',
      content,
      '--json',
      QUESTION,
    ],
    { env: e },
  );

describe('agent research with embeddings', () => {
  it('answers extractively with only an embeddings server, and says how it searched in --json', async () => {
    const e = env();
    const r = await extractiveJson(e);
    expect(r.stderr).not.toMatch(/BM25/);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.retrieval.mode).toBe('hybrid');
    expect(out.retrieval.embeddings).toBe('openai-compatible:fake-embed');
    for (const p of out.retrieval.passages) {
      expect(Object.keys(p)).toEqual(['document', 'bm25Rank', 'vectorRank', 'score']);
      expect(p.bm25Rank === null || Number.isInteger(p.bm25Rank)).toBe(true);
      expect(p.vectorRank === null || Number.isInteger(p.vectorRank)).toBe(true);
    }
    expect(out.retrieval.passages).toContainEqual(
      expect.objectContaining({ document: 'commuting', bm25Rank: null, vectorRank: 1 }),
    );
    // The embedding calls are the run's only spending, and the ledger has them as step embed.
    expect(out.usage.calls).toBeGreaterThan(0);
    const cost = await runCli(['cost', '--by', 'model', '--json'], { env: e });
    expect(JSON.parse(cost.stdout).rows).toEqual([
      expect.objectContaining({ key: 'openai-compatible fake-embed', calls: out.usage.calls }),
    ]);
    const db = new Database(e.AGENT_DB, { readonly: true });
    const steps = db.prepare('SELECT DISTINCT command, step FROM usage_ledger').all();
    db.close();
    expect(steps).toEqual([{ command: 'research', step: 'embed' }]);
  });

  it('is the default retrieval when AGENT_EMBEDDINGS is set; --retrieval bm25 turns it off', async () => {
    const e = env({ AGENT_EMBEDDINGS: 'openai-compatible:fake-embed' });
    const on = JSON.parse(
      (await runCli(['research', '--content', content, '--json', QUESTION], { env: e })).stdout,
    );
    expect(on.retrieval.mode).toBe('hybrid');
    // No chat key: extractive by default, its usage line counting the question's embedding call.
    const plain = await runCli(['research', '--content', content, QUESTION], { env: e });
    expect(plain.stderr).toMatch(
      /Extractive mode: no language model was used; 1 embedding call, cost unknown\. Set ANTHROPIC_API_KEY/,
    );
    const before = server.requests.length;
    const off = await runCli(['research', '--retrieval', 'bm25', '--content', content, '--json', QUESTION], {
      env: e,
    });
    // Asked for, so said: keyword search, no embeddings model, no vector ranks.
    const { retrieval } = JSON.parse(off.stdout);
    expect(retrieval).toMatchObject({ mode: 'bm25', embeddings: null });
    for (const p of retrieval.passages) expect(p.vectorRank).toBeNull();
    expect(server.requests.length).toBe(before);
  });

  it('goes on by keywords when the server is down, saying so in one line and in --json', async () => {
    server.fault = 'down';
    try {
      const r = await runCli(
        [
          'research',
          '--embeddings',
          'openai-compatible:fake-embed',
          '--content',
          content,
          '--json',
          'Which room does ZX-4471 open?',
        ],
        { env: env() },
      );
      expect(r.code).toBe(0);
      // Step lines (·) aside, one line says it.
      const said = r.stderr.split('\n').filter((l) => l && !l.startsWith('·'));
      expect(said).toHaveLength(1);
      expect(said[0]).toMatch(/embeddings server.*keywords \(BM25\) only this run\.$/);
      // The setting that gave the address is the one named, not OPENAI_BASE_URL.
      expect(said[0]).toMatch(/Check the network and AGENT_EMBEDDINGS_BASE_URL\./);
      const out = JSON.parse(r.stdout);
      expect(out.retrieval).toMatchObject({ mode: 'bm25', fallback: expect.any(String) });
      expect(out.answer).toMatch(/ZX-4471/);
    } finally {
      server.fault = 'none';
    }
  });

  it('searches with vectors through a server that takes fewer texts a request (TEI: 32 by default)', async () => {
    server.maxBatch = 1;
    const before = server.requests.length;
    try {
      const r = await extractiveJson(env());
      expect(r.code).toBe(0);
      expect(r.stderr).not.toMatch(/BM25|422/);
      expect(JSON.parse(r.stdout).retrieval.mode).toBe('hybrid');
      // Refused once with the folder's passages together; then one a request.
      const counts = server.requests.slice(before).map((q) => q.count);
      expect(counts.filter((n) => n > 1)).toHaveLength(1);
      expect(counts.filter((n) => n === 1).length).toBeGreaterThan(3);
    } finally {
      server.maxBatch = Number.POSITIVE_INFINITY;
    }
  });

  it.each([
    [['--embeddings', 'cohere:embed-v3'], /Unknown embeddings provider/],
    [['--embeddings', 'openai-compatible'], /Name the model/],
    [['--retrieval', 'fuzzy'], /Unknown retrieval "fuzzy"/],
    [['--retrieval', 'hybrid'], /needs an embeddings model/],
  ])('refuses %j in one line, exit 2', async (flags, message) => {
    const r = await runCli(['research', ...flags, '--content', content, QUESTION], { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stdout).toBe('');
  });
});
