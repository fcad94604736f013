import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, startCli, tempDb } from '../support/cli.js';
import { json, type RecordedRequest, sse, startFakeServer } from '../support/fake-server.js';
import { anthropicSse, chatSse } from '../support/sse-builders.js';

let server: Awaited<ReturnType<typeof startFakeServer>>;
beforeEach(async () => {
  server = await startFakeServer();
});
afterEach(() => server.close());

const CHAT = ['chat', '--provider', 'openai-compatible', '--model', 'local-model'];

/** A price for the fake model, so that each session's cost is a number that grows. */
function priceFile(): string {
  const path = join(mkdtempSync(join(tmpdir(), 'agent-prices-')), 'prices.json');
  writeFileSync(path, JSON.stringify({ 'scripted-model': { input: 1, output: 10 } }));
  return path;
}

const env = (db: string, extra: Record<string, string> = {}) => ({
  OPENAI_BASE_URL: `${server.url}/v1`,
  AGENT_DB: db,
  AGENT_PRICES: priceFile(),
  TZ: 'UTC',
  ...extra,
});

const sessionsJson = async (db: string) => {
  const r = await runCli(['sessions', '--json'], { env: { AGENT_DB: db } });
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout) as Record<string, unknown>[];
};

const calculatorExchange = () => [
  sse(chatSse({ calls: [{ id: 'call_1', name: 'calculator', args: { expression: '1234*5678' } }] })),
  sse(chatSse({ text: 'It is 7,006,652.' })),
];

const roles = (req: RecordedRequest) => (req.body as any).messages.map((m: any) => m.role);

describe('agent chat sessions, piped', () => {
  it('--continue resumes the latest session in a new process and bills it under the same run', async () => {
    const db = tempDb();
    server.queue.push(...calculatorExchange());
    const first = await runCli(CHAT, { env: env(db), input: 'What is 1234*5678?\n' });
    expect(first.code).toBe(0);
    const [saved] = await sessionsJson(db);
    expect(saved).toEqual({
      id: 1,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      provider: 'openai-compatible',
      model: 'local-model',
      exchanges: 1,
      costUsd: expect.any(Number),
      firstMessage: 'What is 1234*5678?',
      // Who chatted: AGENT_USER, else the operating-system user name.
      user: expect.any(String),
    });

    server.queue.push(sse(chatSse({ text: 'You asked for 1234*5678.' })));
    const second = await runCli(['chat', '--continue'], { env: env(db), input: 'What did I ask?\n' });
    expect(second.code).toBe(0);
    expect(second.stdout).toBe('You asked for 1234*5678.\n');
    expect(second.stderr).toMatch(
      /^Resuming session #1 \(1 exchange\(s\), last used \d{4}-\d\d-\d\d \d\d:\d\d\)\.\n/,
    );
    // Without --provider or --model, the session's own provider and model.
    const request = server.requests.at(-1)!.body as any;
    expect(request.model).toBe('local-model');
    expect(roles(server.requests.at(-1)!)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'assistant',
      'user',
    ]);
    expect(request.messages[1]).toEqual({ role: 'user', content: 'What is 1234*5678?' });
    expect(request.messages[2].tool_calls[0]).toMatchObject({
      id: 'call_1',
      function: { name: 'calculator' },
    });
    expect(request.messages[3]).toEqual({ role: 'tool', tool_call_id: 'call_1', content: '7006652' });
    expect(request.messages[4]).toEqual({ role: 'assistant', content: 'It is 7,006,652.' });

    const [after] = await sessionsJson(db);
    expect(after).toMatchObject({ id: 1, exchanges: 2 });
    expect(after!.costUsd as number).toBeCloseTo(((saved!.costUsd as number) * 3) / 2, 10);
  });

  it('--session <id> resumes that session, not the latest', async () => {
    const db = tempDb();
    server.queue.push(sse(chatSse({ text: 'Noted: blue.' })), sse(chatSse({ text: 'Noted: green.' })));
    await runCli(CHAT, { env: env(db), input: 'My colour is blue.\n' });
    await runCli(CHAT, { env: env(db), input: 'My colour is green.\n' });
    server.queue.push(sse(chatSse({ text: 'Blue.' })));
    const r = await runCli([...CHAT, '--session', '1'], { env: env(db), input: 'What is my colour?\n' });
    expect(r.code).toBe(0);
    const sent = (server.requests.at(-1)!.body as any).messages.map((m: any) => m.content);
    expect(sent).toEqual([expect.any(String), 'My colour is blue.', 'Noted: blue.', 'What is my colour?']);
    expect((await sessionsJson(db)).map((s) => [s.id, s.exchanges])).toEqual([
      [1, 2],
      [2, 1],
    ]);
  });

  it('a failed turn is not saved; the exchanges before it are', async () => {
    const db = tempDb();
    server.queue.push(
      sse(chatSse({ text: 'First answer.' })),
      json(400, { error: { message: 'context too long', type: 'invalid_request_error' } }),
    );
    const r = await runCli(CHAT, { env: env(db), input: 'first\nsecond\n' });
    expect(r.code).toBe(1);
    expect(await sessionsJson(db)).toMatchObject([{ id: 1, exchanges: 1, firstMessage: 'first' }]);
  });

  it('/clear starts a new session and the old one stays listed', async () => {
    const db = tempDb();
    server.queue.push(sse(chatSse({ text: 'One.' })), sse(chatSse({ text: 'Two.' })));
    const r = await runCli(CHAT, { env: env(db), input: 'one\n/session\n/clear\n/session\ntwo\n/session\n' });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        'One.',
        'This is session #1: agent chat --session 1 resumes it.',
        'Conversation cleared: session #1 stays saved (agent chat --session 1 resumes it); your next message starts a new session.',
        'This session is saved with its first answer; nothing has been answered yet.',
        'Two.',
        'This is session #2: agent chat --session 2 resumes it.',
        '',
      ].join('\n'),
    );
    // The new session starts empty.
    expect(roles(server.requests[1]!)).toEqual(['system', 'user']);
    expect((await sessionsJson(db)).map((s) => [s.id, s.firstMessage])).toEqual([
      [2, 'two'],
      [1, 'one'],
    ]);
  });
});

describe('agent chat resumed on another provider or model', () => {
  const thinkingSse = (answer: string) =>
    [
      [
        'message_start',
        {
          type: 'message_start',
          message: {
            id: 'msg_1',
            type: 'message',
            role: 'assistant',
            model: 'claude-sonnet-5-5',
            content: [],
            stop_reason: null,
            stop_sequence: null,
            usage: { input_tokens: 40, output_tokens: 1 },
          },
        },
      ],
      [
        'content_block_start',
        {
          type: 'content_block_start',
          index: 0,
          content_block: { type: 'thinking', thinking: '', signature: '' },
        },
      ],
      [
        'content_block_delta',
        {
          type: 'content_block_delta',
          index: 0,
          delta: { type: 'thinking_delta', thinking: 'The user wants a name.' },
        },
      ],
      [
        'content_block_delta',
        {
          type: 'content_block_delta',
          index: 0,
          delta: { type: 'signature_delta', signature: 'EuYDCmMIDBgCKkC05Zda' },
        },
      ],
      ['content_block_stop', { type: 'content_block_stop', index: 0 }],
      [
        'content_block_start',
        { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } },
      ],
      [
        'content_block_delta',
        { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: answer } },
      ],
      ['content_block_stop', { type: 'content_block_stop', index: 1 }],
      [
        'message_delta',
        {
          type: 'message_delta',
          delta: { stop_reason: 'end_turn', stop_sequence: null },
          usage: { output_tokens: 30 },
        },
      ],
      ['message_stop', { type: 'message_stop' }],
    ]
      .map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
      .join('');

  const anthropicEnv = (db: string, extra: Record<string, string> = {}) =>
    env(db, { ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: server.url, ...extra });

  it('leaves signed thinking out for another model, says so once, and keeps the conversation', async () => {
    const db = tempDb();
    server.queue.push(sse(thinkingSse('Call it Pelé.')));
    const first = await runCli(['chat', '--provider', 'anthropic'], {
      env: anthropicEnv(db),
      input: 'Name my pelican.\n',
    });
    expect(first.code).toBe(0);
    expect((server.requests[0]!.body as any).model).toBe('claude-sonnet-5-5');

    // Same model: the signed thinking goes back unchanged, as the API requires within one model.
    server.queue.push(sse(anthropicSse({ text: 'Pelé.' })));
    const same = await runCli(['chat', '--continue'], { env: anthropicEnv(db), input: 'Its name?\n' });
    expect(same.code).toBe(0);
    expect(same.stderr).not.toMatch(/reasoning/);
    expect((server.requests[1]!.body as any).messages[1].content[0]).toMatchObject({
      type: 'thinking',
      signature: 'EuYDCmMIDBgCKkC05Zda',
    });

    server.queue.push(sse(anthropicSse({ text: 'It was Pelé.' }, 'claude-haiku-5-5')));
    const other = await runCli(['chat', '--continue', '--model', 'claude-haiku-5-5'], {
      env: anthropicEnv(db),
      input: 'Remind me?\n',
    });
    expect(other.code).toBe(0);
    expect(other.stderr.match(/reasoning blocks are left out/g)).toHaveLength(1);
    expect(other.stderr).toMatch(
      'Resuming a session from anthropic claude-sonnet-5-5: its reasoning blocks are left out.',
    );
    const sent = server.requests[2]!.body as any;
    expect(sent.model).toBe('claude-haiku-5-5');
    expect(JSON.stringify(sent.messages)).not.toMatch(/thinking|signature/);
    expect(sent.messages.map((m: any) => [m.role, m.content.map((b: any) => b.text).join('')])).toEqual([
      ['user', 'Name my pelican.'],
      ['assistant', 'Call it Pelé.'],
      ['user', 'Its name?'],
      ['assistant', 'Pelé.'],
      ['user', 'Remind me?'],
    ]);
    expect(await sessionsJson(db)).toMatchObject([
      { exchanges: 3, provider: 'anthropic', model: 'claude-haiku-5-5' },
    ]);
  });

  it("falls back to the configured provider when the session's is not usable here, and says so", async () => {
    const db = tempDb();
    server.queue.push(sse(thinkingSse('Call it Pelé.')));
    await runCli(['chat', '--provider', 'anthropic'], { env: anthropicEnv(db), input: 'Name my pelican.\n' });
    server.queue.push(sse(chatSse({ text: 'Pelé.' })));
    const r = await runCli(['chat', '--continue'], {
      env: env(db, { AGENT_PROVIDER: 'openai-compatible', AGENT_MODEL: 'local-model' }),
      input: 'Its name?\n',
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(
      'Session #1 was with anthropic claude-sonnet-5-5, but provider anthropic needs ANTHROPIC_API_KEY to be set. Continuing with openai-compatible local-model.',
    );
    expect(server.requests[1]!.url).toBe('/v1/chat/completions');
    expect((server.requests[1]!.body as any).messages.slice(1)).toEqual([
      { role: 'user', content: 'Name my pelican.' },
      { role: 'assistant', content: 'Call it Pelé.' },
      { role: 'user', content: 'Its name?' },
    ]);
  });
  it('with no provider usable at all, says what the session needs, exit 2', async () => {
    const db = tempDb();
    server.queue.push(sse(thinkingSse('Call it Pelé.')));
    await runCli(['chat', '--provider', 'anthropic'], { env: anthropicEnv(db), input: 'Name my pelican.\n' });
    const r = await runCli(['chat', '--continue'], { env: { AGENT_DB: db }, input: 'Its name?\n' });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'agent: Session #1 was with anthropic claude-sonnet-5-5, but provider anthropic needs ANTHROPIC_API_KEY to be set.\n',
    );
  });
});

describe('a chat that dies mid-turn', () => {
  /** A piped chat whose stdin stays open, so lines can be typed one at a time. */
  function startChat(db: string) {
    const { child, done, printed } = startCli(CHAT, { env: env(db), keepStdin: true });
    return {
      child: child as ChildProcessWithoutNullStreams,
      /** Waits until stdout holds `text` (on output, not a clock), and asserts that it does. */
      printed: async (text: string) => expect(await printed(text)).toContain(text),
      exited: done.then((r) => r.code),
    };
  }

  const hangingSecondTurn = () => {
    server.queue.push(sse(chatSse({ text: 'First answer.' })), {
      ...sse(chatSse({ text: 'Second answer that never ends' }).split('\n\n').slice(0, 3).join('\n\n')),
      hang: true,
    });
  };

  it('kill -9 during the second turn keeps the first exchange, and the database stays sound', async () => {
    const db = tempDb();
    hangingSecondTurn();
    const chat = startChat(db);
    chat.child.stdin.write('first question\n');
    await chat.printed('First answer.');
    chat.child.stdin.write('second question\n');
    // The second answer has begun, so its request has been sent.
    await chat.printed('Second answer');
    expect(server.requests).toHaveLength(2);
    chat.child.kill('SIGKILL');
    await chat.exited;

    const check = new Database(db);
    expect(check.pragma('integrity_check', { simple: true })).toBe('ok');
    check.close();
    expect(await sessionsJson(db)).toMatchObject([{ id: 1, exchanges: 1, firstMessage: 'first question' }]);
    const shown = await runCli(['sessions', '--show', '1'], { env: { AGENT_DB: db } });
    expect(shown.stdout).toMatch(/\n\nYou: first question\nAssistant: First answer\.\n$/);
  });

  it('Ctrl-C during the second turn saves nothing of it', async () => {
    const db = tempDb();
    hangingSecondTurn();
    const chat = startChat(db);
    chat.child.stdin.write('first question\n');
    await chat.printed('First answer.');
    chat.child.stdin.write('second question\n');
    await chat.printed('Second answer');
    chat.child.kill('SIGINT');
    expect(await chat.exited).toBe(130);
    expect(await sessionsJson(db)).toMatchObject([{ exchanges: 1 }]);
  });
});

describe('agent sessions', () => {
  it('lists, shows (tool calls one line each) and deletes sessions', async () => {
    const db = tempDb();
    server.queue.push(...calculatorExchange(), sse(chatSse({ text: 'Hello!' })));
    await runCli(CHAT, { env: env(db), input: 'What is 1234*5678?\n' });
    await runCli(CHAT, { env: env(db), input: `hi ${'there '.repeat(40)}\n` });

    const list = await runCli(['sessions'], { env: { AGENT_DB: db, TZ: 'UTC' } });
    expect(list.code).toBe(0);
    const lines = list.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      /^#2 {2}\d{4}-\d\d-\d\d \d\d:\d\d {2}openai-compatible local-model {2}1 exchange {2}\$0\.\d+ {2}hi there there/,
    );
    expect(lines[0]!.length).toBeLessThanOrEqual(100);
    expect(lines[0]).toMatch(/…$/);
    expect(lines[1]).toMatch(/^#1 .* 1 exchange .* What is 1234\*5678\?$/);
    const limited = await runCli(['sessions', '-n', '1', '--json'], { env: { AGENT_DB: db } });
    expect(JSON.parse(limited.stdout).map((s: { id: number }) => s.id)).toEqual([2]);

    const shown = await runCli(['sessions', '--show', '1'], { env: { AGENT_DB: db } });
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(
      /^Session #1 · openai-compatible local-model · 1 exchange\(s\) · \$0\.\d+ · started /,
    );
    expect(shown.stdout).toMatch(
      /\n\nYou: What is 1234\*5678\?\n {2}→ calculator \{"expression":"1234\*5678"\} = 7006652\nAssistant: It is 7,006,652\.\n$/,
    );
    const asJson = await runCli(['sessions', '--show', '1', '--json'], { env: { AGENT_DB: db } });
    expect(JSON.parse(asJson.stdout)).toMatchObject([
      { exchange: 1, role: 'user', content: 'What is 1234*5678?' },
      { exchange: 1, role: 'assistant', content: [{ type: 'toolCall', id: 'call_1', name: 'calculator' }] },
      { exchange: 1, role: 'toolResult', toolCallId: 'call_1', content: '7006652', isError: false },
      { exchange: 1, role: 'assistant', content: [{ type: 'text', text: 'It is 7,006,652.' }] },
    ]);

    const deleted = await runCli(['sessions', '--delete', '1'], { env: { AGENT_DB: db } });
    expect(deleted).toMatchObject({ code: 0, stdout: 'Deleted chat session #1.\n' });
    expect((await sessionsJson(db)).map((s) => s.id)).toEqual([2]);
    // Its spending stays in the ledger: what was spent was spent.
    const cost = JSON.parse((await runCli(['cost', '--json'], { env: { AGENT_DB: db } })).stdout);
    expect(cost.totals.calls).toBe(3);
  });

  it('says when there is nothing saved yet', async () => {
    const r = await runCli(['sessions'], { env: { AGENT_DB: tempDb() } });
    expect(r).toMatchObject({ code: 0, stdout: expect.stringMatching(/^No saved chat sessions yet/) });
    expect(await sessionsJson(tempDb())).toEqual([]);
  });

  it.each([
    [['sessions', '--show', '9'], /There is no chat session #9\. `agent sessions` lists them/],
    [['sessions', '--delete', '9'], /There is no chat session #9\. `agent sessions` lists them/],
    [['chat', '--session', '9'], /There is no chat session #9\. `agent sessions` lists them/],
    [['chat', '--continue'], /no saved chat session to continue yet.*`agent sessions` lists them/],
    [['chat', '--continue', '--session', '1'], /cannot be used with/],
    [['chat', '--session', 'abc'], /expected a whole number/],
    [['sessions', '--show', '1', '--delete', '1'], /cannot be used with/],
  ])('%j is a usage error (exit 2) that says what to do', async (args, message) => {
    const r = await runCli(args, { env: env(tempDb()), input: 'hello\n' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toMatch(/at .*\.js:\d+/);
    expect(server.requests).toHaveLength(0);
  });
});
