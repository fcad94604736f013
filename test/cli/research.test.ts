import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ROOT, runCli, tempDb } from '../support/cli.js';
import { type RecordedRequest, sse, startFakeServer } from '../support/fake-server.js';
import { chatSse } from '../support/sse-builders.js';

const QUESTION = 'How much can a support agent refund without approval?';

describe('agent research without a key (the README quick start)', () => {
  it('answers from the bundled documents, cites policies/refunds, and says no model was used', async () => {
    const r = await runCli(['research', QUESTION], { env: { AGENT_DB: tempDb() } });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^No model was used \(extractive mode\)/);
    expect(r.stdout).toMatch(
      /^- A support agent can refund up to \$200 per order without approval\. \[1\]$/m,
    );
    expect(r.stdout).toContain(`[1] Refunds Policy — ${join(ROOT, 'content', 'policies', 'refunds.md')}`);
    expect(r.stderr).toMatch(/Extractive mode: no model was used/);
  });

  it('--extractive with a key set says no model was used, and does not ask for the key it has', async () => {
    const r = await runCli(['research', '--extractive', QUESTION], {
      env: { AGENT_DB: tempDb(), ANTHROPIC_API_KEY: 'sk-ant-test' },
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/Extractive mode: no model was used\./);
    expect(r.stderr).not.toMatch(/Set ANTHROPIC_API_KEY/);
  });

  it('prints the documented JSON', async () => {
    const r = await runCli(['research', '--json', QUESTION], { env: { AGENT_DB: tempDb() } });
    const out = JSON.parse(r.stdout);
    expect(Object.keys(out)).toEqual([
      'id',
      'question',
      'mode',
      'answer',
      'sources',
      'citations',
      'grounding',
      'evidence',
      'usage',
      'format',
      'settings',
      'rounds',
      'truncated',
      'timings',
      'createdAt',
    ]);
    expect(out).toMatchObject({ question: QUESTION, mode: 'extractive', format: 'answer', rounds: 1 });
    expect(out.sources[0]).toEqual({
      n: 1,
      title: 'Refunds Policy',
      location: join(ROOT, 'content', 'policies', 'refunds.md'),
      kind: 'document',
      read: 'read',
    });
    expect(out.citations.dangling).toEqual([]);
    // Extractive answers quote the documents, so every cited number is in its source.
    expect(out.grounding.checked).toBeGreaterThan(0);
    expect(out.grounding.unsupported).toEqual([]);
    expect(out.settings).toEqual({ depth: 1, breadth: 3, perSearch: 2, maxSources: 20, report: false });
  });

  it('refuses --report without a model (exit 2, nothing run); --depth is noted and the answer extractive', async () => {
    const report = await runCli(['research', '--report', QUESTION], { env: { AGENT_DB: tempDb() } });
    expect(report).toMatchObject({ code: 2, stdout: '' });
    expect(report.stderr).toBe(
      'agent: --report needs a model to write the report, and extractive mode uses none: drop --report to get the passages that best answer the question, or drop --extractive, or set ANTHROPIC_API_KEY or OPENAI_API_KEY (or use --provider ollama).\n',
    );
    const r = await runCli(['research', '--depth', '2', QUESTION], { env: { AGENT_DB: tempDb() } });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(
      /Extractive mode has no model to write a report or follow up: --depth ignored\./,
    );
    expect(r.stdout).toMatch(/^No model was used/);
  });

  it('says when the content folder holds no documents', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'agent-empty-'));
    const r = await runCli(['research', '--content', empty, 'anything'], { env: { AGENT_DB: tempDb() } });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`The content folder ${empty} holds no documents`);
    expect(r.stdout).toBe('No passage in the local documents matches this question.\n');
  });

  it('says plainly when nothing in the documents matches, with no empty source list', async () => {
    const r = await runCli(['research', 'zebra migration patterns'], { env: { AGENT_DB: tempDb() } });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('No passage in the local documents matches this question.\n');
    expect(r.stderr).not.toMatch(/No citation/);
  });

  it('refuses a missing content folder with one line, exit 2', async () => {
    const r = await runCli(['research', '--content', '/no/such/dir', 'anything'], {
      env: { AGENT_DB: tempDb() },
    });
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toMatch(/^agent: The content folder \/no\/such\/dir does not exist/);
  });

  it('refuses a provider without its key with one line, exit 2, before opening the database', async () => {
    const db = tempDb();
    const r = await runCli(['research', '--provider', 'openai', 'anything'], { env: { AGENT_DB: db } });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('agent: Provider openai needs OPENAI_API_KEY to be set.\n');
    expect(existsSync(db)).toBe(false);
  });
});

describe('agent research with a model', () => {
  let server: Awaited<ReturnType<typeof startFakeServer>>;
  const script = (req: RecordedRequest) => {
    const body = req.body as any;
    const system = body.messages[0].content as string;
    if (system.includes('You plan research'))
      return sse(
        chatSse({ text: '{"documents": ["policies/refunds", "support/escalation"], "searches": []}' }),
      );
    if (system.includes('You extract facts'))
      return sse(chatSse({ text: '- Agents can refund up to $200 without approval.' }));
    if (system.includes('You write the answer'))
      return sse(chatSse({ text: 'A support agent can refund up to $200 without approval [1][2].' }));
    return sse(chatSse({ text: 'Noted.' }));
  };
  beforeEach(async () => {
    server = await startFakeServer([], script);
  });
  afterEach(() => server.close());

  it('streams nothing on a pipe but prints the answer and sources on stdout, progress on stderr, and writes --out', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agent-out-'));
    const out = join(dir, 'report.md');
    const db = tempDb();
    const r = await runCli(
      [
        'research',
        QUESTION,
        '--provider',
        'openai-compatible',
        '--small-model',
        's',
        '--large-model',
        'l',
        '--out',
        out,
      ],
      {
        env: { OPENAI_BASE_URL: `${server.url}/v1`, AGENT_DB: db },
      },
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^A support agent can refund up to \$200 without approval \[1\]\[2\]\.\n\nSources\n\[1\] Refunds Policy — .*refunds\.md\n\[2\] Support Escalation Procedure — .*escalation\.md\n$/,
    );
    expect(r.stderr).toMatch(/· Planning \(small model\)[\s\S]*· Writing the answer/);
    expect(r.stderr).toMatch(/✓ \[1\] policies\/refunds/);
    expect(r.stderr).toMatch(/Citations check out: 2 source\(s\) cited/);
    expect(r.stderr).toMatch(/4 model calls · 400 input, 0 cache read, 80 output tokens · unknown/);
    const report = readFileSync(out, 'utf8');
    expect(report).toMatch(
      /^# How much can a support agent refund without approval\?\n\nA support agent can refund/,
    );
    expect(report).toMatch(/## Sources\n\n1\. Refunds Policy — `.*refunds\.md`\n2\. Support Escalation/);
    expect(existsSync(`${out}.${process.pid}.tmp`)).toBe(false);

    const cost = JSON.parse(
      (await runCli(['cost', '--by', 'command', '--json'], { env: { AGENT_DB: db } })).stdout,
    );
    expect(cost.rows).toEqual([expect.objectContaining({ key: 'research', calls: 4 })]);
  });

  it('/research inside chat: cost in /cost, the answer joins the conversation', async () => {
    const db = tempDb();
    const r = await runCli(['chat', '--provider', 'openai-compatible', '--model', 'c'], {
      env: { OPENAI_BASE_URL: `${server.url}/v1`, AGENT_DB: db },
      input: `/research ${QUESTION}\n/cost\nThanks\n`,
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /A support agent can refund up to \$200 without approval \[1\]\[2\]\.\n\nSources\n\[1\] Refunds Policy/,
    );
    expect(r.stdout).toMatch(/This session: 4 model call\(s\)/);
    expect(r.stdout).toMatch(/Noted\.\n$/);
    const last = server.requests.at(-1)!.body as any;
    expect(last.messages.map((m: any) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(last.messages[2].content).toMatch(
      /\$200 without approval \[1\]\[2\]\.\n\nSources:\n\[1\] Refunds Policy/,
    );
  });
});
