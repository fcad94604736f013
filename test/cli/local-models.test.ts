import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CUT_NOTE } from '../../src/research/chain/extract.js';
import { runCli, tempDb } from '../support/cli.js';
import { type ChatSeen, type FakeReply, startOllamaServer } from '../support/ollama-server.js';
import { startVllmServer } from '../support/vllm-server.js';

// Research and chat on local models, through the built CLI: a long source is read whole on a small
// context, with no request over it; a server that cuts prompts is caught and said; a vLLM refusal is
// fitted, never a failed run; `--json` counts Ollama's tokens; a chat's tool call goes round natively.

const QUESTION = 'What is the refund limit for platinum members?';
const FACT = 'Platinum members may be refunded up to $4,750 per order without approval.';

/** A handbook of `sections` sections (420: over 31,000 words), the fact that answers the question near its end. */
function longFolder(sections = 420): string {
  const dir = mkdtempSync(join(tmpdir(), 'agent-local-'));
  const parts = Array.from({ length: sections }, (_, i) => {
    const body = `Section ${i} covers the records of team ${i}: they are kept for seven years, reviewed every quarter by the auditors, and stored in the archive under reference ${1000 + i}. `;
    return `## Section ${i}\n\n${body.repeat(2)}\n\n${i === sections - 4 ? FACT : `Team ${i} meets on Mondays to review the open cases of the week and the backlog.`}`;
  });
  const text = `# Handbook\n\n${parts.join('\n\n')}\n`;
  if (sections >= 420) expect(text.split(/\s+/).length).toBeGreaterThan(30_000);
  writeFileSync(join(dir, 'handbook.md'), text);
  return dir;
}

const stepOf = (seen: ChatSeen) => {
  const system: string = seen.body.messages[0]?.content ?? '';
  return system.includes('You plan research')
    ? 'plan'
    : system.includes('You extract facts')
      ? 'extract'
      : 'write';
};

/** A local model that plans the handbook, finds the fact where it was given it, and writes from it. */
const researcher = (seen: ChatSeen): FakeReply => {
  const step = stepOf(seen);
  if (step === 'plan') return { text: '{"documents": ["handbook"], "searches": []}' };
  if (step === 'extract')
    return { text: seen.prompt.includes('$4,750') ? JSON.stringify({ facts: [FACT] }) : '{"facts": []}' };
  return { text: seen.prompt.includes('$4,750') ? `${FACT} [1]` : 'The handbook does not say [1].' };
};

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

describe('agent research on a local model', () => {
  it('--provider ollama reads a 31,000-word source whole on an 8,192-token model, no request over it', async () => {
    const dir = longFolder();
    const ollama = await startOllamaServer({
      models: [{ name: 'llama3.1', context: 8192 }],
      brain: researcher,
    });
    close = ollama.close;
    const r = await runCli(['research', '--provider', 'ollama', '--content', dir, '--json', QUESTION], {
      env: { AGENT_DB: tempDb(), OLLAMA_HOST: ollama.host },
    });
    expect(r.stderr).not.toMatch(/cut|price/i);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.answer).toBe(`${FACT} [1]`);

    const extracts = ollama.chats.filter((c) => stepOf(c) === 'extract');
    expect(extracts.length).toBeGreaterThan(5);
    for (const c of ollama.chats) {
      expect(c.route).toBe('native');
      expect(c.numCtx).toBeLessThanOrEqual(8192);
      // Nothing was cut: the model saw every token it was sent.
      expect(c.kept).toBe(c.promptTokens);
    }
    // The fact near the end was read, in one request; so were the source's first and last words.
    expect(extracts.filter((c) => c.prompt.includes(FACT))).toHaveLength(1);
    expect(extracts[0]!.prompt).toContain('# Handbook');
    expect(extracts.some((c) => c.prompt.includes('Team 419 meets on Mondays'))).toBe(true);
    // The run's usage is Ollama's own counts, at no cost.
    expect(out.usage).toMatchObject({
      calls: ollama.chats.length,
      inputTokens: ollama.chats.reduce((n, c) => n + c.kept, 0),
      costUsd: 0,
    });
    expect(out.usage.outputTokens).toBeGreaterThan(0);
  }, 120_000);

  it('--provider ollama with AGENT_NUM_CTX too small for the write prompt: the cut is said, with the fix', async () => {
    const dir = longFolder(45);
    const ollama = await startOllamaServer({
      models: [{ name: 'llama3.1', context: 131_072 }],
      brain: (seen) =>
        stepOf(seen) === 'extract'
          ? {
              text: JSON.stringify({
                facts: Array.from(
                  { length: 20 },
                  (_, i) =>
                    `Fact ${seen.prompt.length % 997}-${i}: records of every team are kept for seven years and reviewed.`,
                ),
              }),
            }
          : researcher(seen),
    });
    close = ollama.close;
    const r = await runCli(['research', '--provider', 'ollama', '--content', dir, QUESTION], {
      env: { AGENT_DB: tempDb(), OLLAMA_HOST: ollama.host, AGENT_NUM_CTX: '2048' },
    });
    expect(r.code).toBe(0);
    // Every extraction fitted the 2,048 tokens; the write prompt, all their facts, could not.
    for (const c of ollama.chats.filter((c) => stepOf(c) !== 'write')) expect(c.kept).toBe(c.promptTokens);
    expect(r.stderr).toMatch(
      /^The server cut the write prompt: it read 2,048 of about [\d,]+ tokens, so the reply is from part of it\. To fix: raise AGENT_NUM_CTX \(now 2048\), or use a model with a longer context\.$/m,
    );
  }, 120_000);

  it('a server that cuts prompts (Ollama behind its OpenAI route) is caught and said, naming the step and the fix', async () => {
    // About 3,500 words: read whole, in one request (the server's context is not known).
    const dir = longFolder(45);
    const ollama = await startOllamaServer({
      models: [{ name: 'llama3.1', context: 131_072 }],
      brain: researcher,
      // An older Ollama's default: its OpenAI route ignores every context setting.
      defaultContext: 2048,
    });
    close = ollama.close;
    const r = await runCli(['research', '--provider', 'openai-compatible', '--content', dir, QUESTION], {
      env: { AGENT_DB: tempDb(), OPENAI_BASE_URL: `${ollama.url}/v1`, AGENT_MODEL: 'llama3.1' },
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(
      /^The server cut the extract prompt for "Handbook": it read 2,048 of about [\d,]+ tokens, so the reply is from part of it\. To fix: set AGENT_CONTEXT_TOKENS to the server's context so that requests are split to fit it, or raise the server's own context \(Ollama: OLLAMA_CONTEXT_LENGTH; vLLM: --max-model-len; llama\.cpp: --ctx-size\)\.$/m,
    );
    // The writer was told that the source was read only in part.
    const write = ollama.chats.find((c) => stepOf(c) === 'write')!;
    expect(write.body.messages.at(-1).content).toContain(CUT_NOTE);
  }, 120_000);

  it('a vLLM refusal over its context is fitted and asked again: the run answers', async () => {
    const vllm = await startVllmServer({
      model: 'qwen',
      maxModelLen: 8192,
      unlisted: true,
      answer: (body) => {
        const system: string = body.messages[0].content;
        if (system.includes('You plan research'))
          return '{"documents": ["policies/refunds"], "searches": []}';
        if (system.includes('You extract facts'))
          return '{"facts": ["Agents refund up to $200 without approval."]}';
        return 'Agents refund up to $200 without approval [1].';
      },
    });
    close = vllm.close;
    const r = await runCli(['research', '--provider', 'openai-compatible', 'How much can an agent refund?'], {
      env: { AGENT_DB: tempDb(), OPENAI_BASE_URL: `${vllm.url}/v1`, AGENT_MODEL: 'qwen' },
    });
    expect(r.stderr).not.toMatch(/failed|400/);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Agents refund up to \$200 without approval \[1\]\.$/m);
    // The extract and write requests were refused once each (their budgets over the context), then fitted.
    expect(vllm.refused.length).toBeGreaterThanOrEqual(2);
  }, 120_000);
});

describe('agent chat on a local model', () => {
  it('--provider ollama: a tool call, its result and the answer, on the native API', async () => {
    const ollama = await startOllamaServer({
      models: [{ name: 'llama3.1', context: 131_072 }],
      brain: (seen) =>
        seen.body.messages.some((m: { role: string }) => m.role === 'tool')
          ? { text: '1234 × 5678 = 7,006,652.' }
          : { calls: [{ name: 'calculator', args: { expression: '1234*5678' } }] },
    });
    close = ollama.close;
    const r = await runCli(['chat', '--provider', 'ollama'], {
      env: { AGENT_DB: tempDb(), OLLAMA_HOST: `http://${ollama.host}/v1` },
      input: 'What is 1234*5678?\n',
    });
    expect(r.stderr).toMatch(/→ calculator \{"expression":"1234\*5678"\}/);
    expect(r.stdout).toBe('1234 × 5678 = 7,006,652.\n');
    expect(r.code).toBe(0);
    const [, second] = ollama.chats;
    expect(second!.body.messages.slice(-2)).toEqual([
      {
        role: 'assistant',
        content: '',
        tool_calls: [{ function: { name: 'calculator', arguments: { expression: '1234*5678' } } }],
      },
      { role: 'tool', tool_name: 'calculator', content: '7006652' },
    ]);
    expect(second!.body.tools.map((t: any) => t.function.name)).toContain('calculator');
  }, 60_000);
});
