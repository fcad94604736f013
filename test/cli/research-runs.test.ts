import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, ROOT, runCli, tempDb } from '../support/cli.js';
import { type RecordedRequest, sse, startFakeServer } from '../support/fake-server.js';
import { chatSse } from '../support/sse-builders.js';

// Deep mode, reports and run history as a user meets them: flags, exit codes, files, `agent reports`.

const QUESTION = 'How much can a support agent refund without approval?';

describe('agent research: usage mistakes are exit 2 with one line', () => {
  it.each([
    [['research', '   '], /Ask a question/],
    [['research', '--depth', '0', 'q'], /--depth.*at least 1/],
    [['research', '--breadth', '0', 'q'], /--breadth.*at least 1/],
    [['research', '--max-sources', 'many', 'q'], /--max-sources.*whole number/],
    [['research', '--per-search', '11', 'q'], /--per-search.*1 to 10/],
    [['reports', '--show', '999'], /no saved research run #999.*agent reports/],
  ])('%j', async (args, message) => {
    const r = await runCli(args, { env: { AGENT_DB: tempDb() } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('agent research with a model: reports, deep rounds and history', () => {
  let server: Awaited<ReturnType<typeof startFakeServer>>;
  let hang = false;
  let answer = 'Agents refund up to $200 [1].';
  const script = (req: RecordedRequest) => {
    const body = req.body as any;
    const system = body.messages[0].content as string;
    const user = body.messages.at(-1).content as string;
    if (system.includes('You plan research')) {
      if (hang) return { body: '', hang: true, headers: { 'content-type': 'text/event-stream' } };
      if (user.includes('Facts gathered so far'))
        return sse(
          chatSse({
            text: '{"gaps": ["who approves more"], "documents": ["policies/approvals"], "searches": []}',
          }),
        );
      return sse(chatSse({ text: '{"documents": ["policies/refunds"], "searches": []}' }));
    }
    if (system.includes('You extract facts'))
      return sse(chatSse({ text: '- Agents can refund up to $200.' }));
    if (system.includes('structured research report'))
      return sse(
        chatSse({
          text: '# Refund authority\n\nAgents refund up to $200 [1].\n\n## Limits\n\nUp to $200 without approval [1]; team leads approve more [2].\n\n## Gaps and caveats\n\nNothing on holidays.',
        }),
      );
    return sse(chatSse({ text: answer }));
  };
  beforeEach(async () => {
    hang = false;
    answer = 'Agents refund up to $200 [1].';
    server = await startFakeServer([], script);
  });
  afterEach(() => server.close());
  const model = ['--provider', 'openai-compatible', '--small-model', 's', '--large-model', 'l'];

  it('--report --depth 2 writes a structured report to --out, and the run is kept', async () => {
    const db = tempDb();
    const out = join(mkdtempSync(join(tmpdir(), 'agent-report-')), 'report.md');
    const r = await runCli(['research', ...model, '--report', '--depth', '2', '--out', out, QUESTION], {
      env: { OPENAI_BASE_URL: `${server.url}/v1`, AGENT_DB: db },
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/Round 2 · Looking for gaps/);
    expect(r.stderr).toMatch(/Gaps: who approves more/);
    expect(r.stdout).toMatch(/^# Refund authority/);
    expect(r.stdout).toMatch(/\[2\] Spending Approvals Policy — /);
    const file = readFileSync(out, 'utf8');
    expect(file).toMatch(/^# Refund authority\n/);
    expect(file).toMatch(/## Gaps and caveats/);
    expect(file).toMatch(/## Sources\n\n1\. Refunds Policy — `.*refunds\.md`\n2\. Spending Approvals Policy/);
    expect(r.stderr).toMatch(/Saved as run 1 \(agent reports --show 1\)/);

    const list = JSON.parse((await runCli(['reports', '--json'], { env: { AGENT_DB: db } })).stdout);
    expect(list).toEqual([expect.objectContaining({ id: 1, question: QUESTION, mode: 'model' })]);
    const shown = JSON.parse(
      (await runCli(['reports', '--show', '1', '--json'], { env: { AGENT_DB: db } })).stdout,
    );
    expect(shown).toMatchObject({ id: 1, question: QUESTION, format: 'report', rounds: 2 });
    expect(shown.settings).toMatchObject({ depth: 2, report: true });
    expect(shown.sources.map((s: any) => s.title)).toEqual(['Refunds Policy', 'Spending Approvals Policy']);
  });

  it('flags a cited number the source lacks, under the answer and again in reports --show', async () => {
    answer = 'Agents refund up to $250 without approval [1].';
    const db = tempDb();
    const env = { OPENAI_BASE_URL: `${server.url}/v1`, AGENT_DB: db };
    const r = await runCli(['research', ...model, QUESTION], { env });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(
      /Not found in the cited source \(1 of 1 checked claim\(s\)\):\n\s+"Agents refund up to \$250 without approval \[1\]\." — \[1\] does not contain: \$250/,
    );
    const json = JSON.parse((await runCli(['research', '--json', ...model, QUESTION], { env })).stdout);
    expect(json.grounding).toEqual({
      checked: 1,
      notChecked: [],
      unsupported: [
        { sentence: 'Agents refund up to $250 without approval [1].', cites: [1], missing: ['$250'] },
      ],
    });
    const shown = await runCli(['reports', '--show', '1'], { env });
    expect(shown.stdout).toMatch(/Agents refund up to \$250/);
    expect(shown.stderr).toMatch(/does not contain: \$250/);
  });

  it('refuses an --out it cannot write before any model call, exit 2', async () => {
    const db = tempDb();
    const env = { OPENAI_BASE_URL: `${server.url}/v1`, AGENT_DB: db };
    for (const out of ['/nonexistent-folder/report.md', tmpdir()]) {
      const r = await runCli(['research', ...model, '--out', out, QUESTION], { env });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(
        /^agent: Cannot write --out .*: (the folder .* does not exist|it is a folder)\.\n$/,
      );
    }
    expect(server.requests).toHaveLength(0);
  });

  it('Ctrl-C exits 130 and keeps nothing', async () => {
    hang = true;
    const db = tempDb();
    const child = spawn(process.execPath, [BIN, 'research', ...model, QUESTION], {
      env: cleanEnv({ OPENAI_BASE_URL: `${server.url}/v1`, AGENT_DB: db }),
      cwd: ROOT,
    });
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    // Wait for the plan request to reach the model, then interrupt.
    // However long that takes on a loaded machine: a SIGINT sent before would meet no handler yet.
    while (server.requests.length === 0) await new Promise((r) => setTimeout(r, 10));
    child.kill('SIGINT');
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(code).toBe(130);
    expect(stderr).toMatch(/Cancelled/);
    const list = JSON.parse((await runCli(['reports', '--json'], { env: { AGENT_DB: db } })).stdout);
    expect(list).toEqual([]);
  });
});
