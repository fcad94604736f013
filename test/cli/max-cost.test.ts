import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, tempDb } from '../support/cli.js';
import { type RecordedRequest, sse, startFakeServer } from '../support/fake-server.js';
import { hasScript, terminalChat } from '../support/pty.js';
import { contentFolder, LOOPBACK_RESEARCH, prices } from '../support/research-world.js';
import { chatSse } from '../support/sse-builders.js';

let server: Awaited<ReturnType<typeof startFakeServer>>;
afterEach(() => server.close());

const DOCS = Object.fromEntries(
  Array.from({ length: 5 }, (_, i) => [
    `doc${i + 1}.md`,
    `# Doc ${i + 1}\n\nLimit ${i + 1} is $${i + 100}.\n`,
  ]),
);

/** A model that plans to read every document, and bills 5,000 output tokens per extraction. */
function researchModel(req: RecordedRequest) {
  const body = req.body as { model: string; messages: { content: string }[] };
  const system = body.messages[0]?.content ?? '';
  if (system.includes('You plan research'))
    return sse(
      chatSse(
        { text: JSON.stringify({ documents: Object.keys(DOCS).map((d) => d.slice(0, -3)) }) },
        body.model,
      ),
    );
  if (system.includes('You extract facts'))
    return sse(chatSse({ text: '- a limit', usage: { input: 500, output: 5000 } }, body.model));
  return sse(chatSse({ text: 'The limits are listed [1].' }, body.model));
}

describe('agent research --max-cost', () => {
  beforeEach(async () => {
    server = await startFakeServer([], async (req) => researchModel(req));
  });

  const research = (args: string[], env: Record<string, string> = {}) =>
    runCli(
      [
        ...LOOPBACK_RESEARCH,
        '--breadth',
        '5',
        '--content',
        contentFolder(DOCS),
        ...args,
        'What are the limits?',
      ],
      {
        env: {
          OPENAI_BASE_URL: `${server.url}/v1`,
          AGENT_DB: tempDb(),
          AGENT_PRICES: prices({ small: { input: 1, output: 10 }, large: { input: 1, output: 10 } }),
          ...env,
        },
      },
    );

  it('stops collecting before the cap, says so, answers, and reports the budget in --json', async () => {
    const r = await research(['--max-cost', '0.40', '--json']);
    expect(r.code).toBe(0);
    const read = /Stopped collecting at \$0\.\d+ of the \$0\.4000 cap: (\d) of 5 sources read\./.exec(
      r.stderr,
    );
    expect(read, r.stderr).not.toBeNull();
    const out = JSON.parse(r.stdout);
    expect(out.budget).toEqual({ limitUsd: 0.4, spentUsd: out.usage.costUsd, stopped: true });
    expect(out.budget.spentUsd).toBeLessThanOrEqual(0.4);
    expect(out.sources).toHaveLength(Number(read![1]));
    expect(Number(read![1])).toBeLessThan(5);
    const extractions = server.requests.filter((q) =>
      JSON.stringify(q.body).includes('You extract facts'),
    ).length;
    expect(extractions).toBe(Number(read![1]));
  });

  it('says the cap in the usage line of a text run', async () => {
    const r = await research(['--max-cost', '5']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/output tokens · \$0\.\d{4} of the \$5\.00 cap( · [^\n]*)?\n/);
  });

  it('takes its default from AGENT_MAX_COST; no cap, no budget key', async () => {
    const capped = await research(['--json'], { AGENT_MAX_COST: '5' });
    expect(JSON.parse(capped.stdout).budget).toMatchObject({ limitUsd: 5, stopped: false });
    const free = await research(['--json']);
    expect(JSON.parse(free.stdout)).not.toHaveProperty('budget');
  });

  it('refuses bad amounts, a bad AGENT_MAX_COST and an unpriced model as usage errors', async () => {
    for (const bad of ['abc', '-1', '0', 'NaN', '']) {
      const r = await research(['--max-cost', bad]);
      expect(r.code, bad).toBe(2);
      expect(r.stderr).toMatch(/--max-cost <usd>.*expected an amount in US dollars greater than 0/);
    }
    const env = await research([], { AGENT_MAX_COST: 'lots' });
    expect(env.code).toBe(2);
    expect(env.stderr).toBe(
      'agent: AGENT_MAX_COST=lots is not a valid cap: expected an amount in US dollars greater than 0, like 0.50.\n',
    );
    const unpriced = await research(['--max-cost', '1'], { AGENT_PRICES: prices({}) });
    expect(unpriced.code).toBe(2);
    expect(unpriced.stderr).toMatch(
      /^agent: --max-cost needs the price of small, which is not known\. Add it to your price file .*prices\.json/,
    );
    expect(server.requests).toHaveLength(0);
  });

  it('says how far a cap too low falls short, without calling the model', async () => {
    const r = await research(['--max-cost', '0.01']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /The \$0\.01000 cap \(--max-cost\) does not cover planning and writing .* raise it to at least \$0\.\d+\./,
    );
    expect(server.requests).toHaveLength(0);
  });
});

describe('agent chat --max-cost', () => {
  beforeEach(async () => {
    // Each answer bills 20 output tokens at $1,000 a million: $0.02.
    server = await startFakeServer([], async () => sse(chatSse({ text: 'An answer.' }, 'local-model')));
  });

  const chat = (args: string[], input: string, env: Record<string, string> = {}) =>
    runCli(['chat', '--provider', 'openai-compatible', '--model', 'local-model', ...args], {
      input,
      env: {
        OPENAI_BASE_URL: `${server.url}/v1`,
        AGENT_DB: tempDb(),
        AGENT_PRICES: prices({ 'local-model': { input: 0, output: 1000 } }),
        ...env,
      },
    });

  it('refuses a message once the cap is spent, saying what was spent and how to raise it', async () => {
    const r = await chat(['--max-cost', '0.01'], 'first\nsecond\n');
    expect(r.stdout).toBe('An answer.\n');
    expect(r.stderr).toContain(
      'agent: Not sent: this chat has spent $0.02000 of its $0.01000 cap (--max-cost). Raise it with /max-cost <usd>, or leave and run agent chat --continue --max-cost <usd>.',
    );
    expect(r.code).toBe(1);
    expect(server.requests).toHaveLength(1);
  });

  it('goes on after /max-cost raises the cap; AGENT_MAX_COST sets the default', async () => {
    const r = await chat([], 'first\n/max-cost 1\nsecond\n', { AGENT_MAX_COST: '0.01' });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('An answer.\nSpending cap $1.00: $0.02000 spent under it.\nAn answer.\n');
  });

  it.skipIf(!hasScript)('on a terminal, refuses the message and keeps the chat open', async () => {
    const t = terminalChat(
      ['--provider', 'openai-compatible', '--model', 'local-model', '--max-cost', '0.01'],
      {
        OPENAI_BASE_URL: `${server.url}/v1`,
        AGENT_DB: tempDb(),
        AGENT_PRICES: prices({ 'local-model': { input: 0, output: 1000 } }),
      },
    );
    await t.waitFor(/› /);
    t.type('first\r');
    await t.waitFor(/An answer\./);
    const mark = t.mark();
    t.type('second\r');
    await t.waitFor(/Not sent: this chat has spent \$0\.02000 of its \$0\.01000 cap/, mark);
    t.type('\x04');
    expect(await t.exited).toBe(0);
    expect(server.requests).toHaveLength(1);
  });

  it('needs a price for the chat model', async () => {
    const r = await chat(['--max-cost', '1'], 'hello\n', { AGENT_PRICES: prices({}) });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^agent: --max-cost needs the price of local-model, which is not known/);
    expect(server.requests).toHaveLength(0);
  });
});
