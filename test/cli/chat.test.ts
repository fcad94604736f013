import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, tempDb } from '../support/cli.js';
import { json, sse, startFakeServer } from '../support/fake-server.js';
import { anthropicSse, chatSse } from '../support/sse-builders.js';
import { sqliteStore } from '../support/stores.js';

let server: Awaited<ReturnType<typeof startFakeServer>>;
beforeEach(async () => {
  server = await startFakeServer();
});
afterEach(() => server.close());

describe('agent chat, piped', () => {
  it('answers each line on stdout, traces tools on stderr, records every model call', async () => {
    server.queue.push(
      sse(chatSse({ calls: [{ id: 'call_1', name: 'calculator', args: { expression: '1234*5678' } }] })),
      sse(chatSse({ text: '1234 × 5678 = 7,006,652.' })),
      sse(chatSse({ text: 'You asked about multiplication.' })),
    );
    const db = tempDb();
    const r = await runCli(['chat', '--provider', 'openai-compatible', '--model', 'local-model'], {
      env: { OPENAI_BASE_URL: `${server.url}/v1`, AGENT_DB: db },
      input: 'What is 1234*5678?\n\nWhat did I ask?\n',
    });
    expect(r.stderr).toMatch(/→ calculator \{"expression":"1234\*5678"\}/);
    expect(r.stderr).toMatch(/← 7006652/);
    expect(r.stdout).toBe('1234 × 5678 = 7,006,652.\nYou asked about multiplication.\n');
    expect(r.code).toBe(0);

    // The tool result went back to the model under the call's id, and history carried over.
    const second = server.requests[1]!.body as any;
    expect(second.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'call_1', content: '7006652' });
    const third = server.requests[2]!.body as any;
    expect(third.messages.map((m: any) => m.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'assistant',
      'user',
    ]);

    const storeStore = await sqliteStore(db);
    const store = storeStore.db;
    const rows = store.prepare('SELECT command, step, provider, model FROM usage_ledger').all();
    expect(rows).toEqual(
      Array(3).fill({
        command: 'chat',
        step: 'chat',
        provider: 'openai-compatible',
        model: 'scripted-model',
      }),
    );
  });

  it('an unknown /command says so on stderr; a line starting with // is sent as a message', async () => {
    server.queue.push(sse(chatSse({ text: 'That is the password file.' })));
    const r = await runCli(['chat', '--provider', 'openai-compatible', '--model', 'm'], {
      env: { OPENAI_BASE_URL: `${server.url}/v1`, AGENT_DB: tempDb() },
      input: '/nope\n//etc/passwd, what is it?\n',
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('That is the password file.\n');
    expect(r.stderr).toMatch(
      /Unknown command \/nope\. Try \/help, or start the line with \/\/ to send it as a message\./,
    );
    expect((server.requests[0]!.body as any).messages.at(-1)).toEqual({
      role: 'user',
      content: '/etc/passwd, what is it?',
    });
  });

  it('works through Anthropic with prompt caching and reports cache reads in /cost', async () => {
    server.queue.push(
      sse(
        anthropicSse({
          calls: [
            { id: 'toolu_1', name: 'save_note', args: { content: 'Refund limit is $200', tags: ['policy'] } },
          ],
          usage: { input: 50, output: 30, cached: 900 },
        }),
      ),
      sse(anthropicSse({ text: 'Saved it as note #1.', usage: { input: 60, output: 10, cached: 950 } })),
    );
    const db = tempDb();
    const r = await runCli(['chat'], {
      env: { ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: server.url, AGENT_DB: db },
      input: 'Remember that the refund limit is $200\n/cost\n',
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^Saved it as note #1\.\nThis session: 2 model call\(s\); input 110, cache read 1,850, cache write 0, output 40 tokens; \$0\.\d+\.\n$/,
    );
    const notes = await runCli(['notes', '--json'], { env: { AGENT_DB: db } });
    expect(JSON.parse(notes.stdout)[0]).toMatchObject({ content: 'Refund limit is $200', tags: ['policy'] });
    const first = server.requests[0]!.body as any;
    expect(first.model).toBe('claude-sonnet-5-5');
    expect(first.system[0].cache_control).toEqual({ type: 'ephemeral' });
    expect(first.messages[0].content.at(-1).cache_control).toEqual({ type: 'ephemeral' });
  });

  it('stops at the first failed turn with one clear line and a non-zero exit', async () => {
    server.queue.push(
      json(401, { error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } }),
    );
    const r = await runCli(['chat'], {
      env: { OPENAI_API_KEY: 'sk-bad', OPENAI_BASE_URL: `${server.url}/v1`, AGENT_DB: tempDb() },
      input: 'hello\nsecond line\n',
    });
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe(
      'agent: OpenAI rejected the API key (401): Incorrect API key provided. Check OPENAI_API_KEY.',
    );
    expect(server.requests).toHaveLength(1);
  });

  it("prices a model the table does not know from the user's price file", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agent-prices-'));
    const prices = join(dir, 'prices.json');
    writeFileSync(prices, JSON.stringify({ 'scripted-model': { input: 1, output: 10 } }));
    server.queue.push(sse(chatSse({ text: 'Hi.', usage: { input: 1_000_000, output: 100_000 } })));
    const db = tempDb();
    const r = await runCli(['chat', '--provider', 'openai-compatible', '--model', 'scripted-model'], {
      env: { OPENAI_BASE_URL: `${server.url}/v1`, AGENT_DB: db, AGENT_PRICES: prices },
      input: 'hello\n',
    });
    expect(r.code).toBe(0);
    const cost = JSON.parse((await runCli(['cost', '--json'], { env: { AGENT_DB: db } })).stdout);
    expect(cost.totals).toMatchObject({ calls: 1, costUsd: 2, unpricedCalls: 0 });
  });

  it('says what to set when no provider is configured, exit 2', async () => {
    const r = await runCli(['chat'], { env: { AGENT_DB: tempDb() }, input: 'hi\n' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/ANTHROPIC_API_KEY or OPENAI_API_KEY.*--provider ollama/);
  });
});
