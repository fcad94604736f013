import { afterEach, beforeEach, expect, it } from 'vitest';
import { tempDb } from '../support/cli.js';
import { type RecordedRequest, sse, startFakeServer } from '../support/fake-server.js';
import { hasScript, terminalChat } from '../support/pty.js';
import { chatSse } from '../support/sse-builders.js';

// The interactive chat on a real pseudo-terminal.

let server: Awaited<ReturnType<typeof startFakeServer>>;
beforeEach(async () => {
  server = await startFakeServer([], (req: RecordedRequest) => {
    const last = (req.body as any).messages.at(-1);
    // Never answered: the call is cancelled before its reply begins.
    if (last.role === 'user' && /silent/.test(last.content)) return new Promise<never>(() => {});
    if (last.role === 'user' && /slow/.test(last.content)) {
      // A stream that starts and then stalls, so the user has time to press Ctrl-C.
      // A whole first line: a terminal shows a reply's Markdown rendered line by line as each completes.
      const partial = chatSse({ text: 'Thinking about\nit slowly' }).split('\n\n').slice(0, 3).join('\n\n');
      return { ...sse(partial), hang: true };
    }
    if (last.role === 'user')
      return sse(chatSse({ calls: [{ id: 'c1', name: 'calculator', args: { expression: '1234*5678' } }] }));
    return sse(chatSse({ text: `The answer is ${last.content}.` }));
  });
});
afterEach(() => server.close());

it.skipIf(!hasScript)(
  'on a terminal: traces tools, Ctrl-C cancels a turn and keeps the chat, Ctrl-D leaves',
  async () => {
    const {
      out: output,
      waitFor,
      type,
      exited,
    } = terminalChat(['--provider', 'openai-compatible', '--model', 'fake'], {
      OPENAI_BASE_URL: `${server.url}/v1`,
      AGENT_DB: tempDb(),
    });

    await waitFor(/Ctrl-D to leave/);
    type('what is 1234*5678\r');
    await waitFor(/The answer is 7006652\./);
    expect(output()).toMatch(/→ calculator \{"expression":"1234\*5678"\}/);

    let mark = output().length;
    type('go slow please\r');
    await waitFor(/Thinking about/, mark);
    type('\x03');
    await waitFor(/cancelled; the conversation is as it was before this message/, mark);

    mark = output().length;
    type('/cost\r');
    // The cancelled call is billed all the same, so it is in the ledger: two calls answered, one cancelled.
    await waitFor(/This session: 3 model call\(s\)/, mark);
    // The cancelled turn left nothing behind: the next request carries only the first exchange.
    mark = output().length;
    type('thanks\r');
    await waitFor(/The answer is 7006652\./, mark);
    const roles = (server.requests.at(-1)!.body as any).messages.map((m: any) => m.role);
    expect(roles).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'user', 'assistant', 'tool']);

    type('\x04');
    expect(await exited).toBe(0);
  },
);

it.skipIf(!hasScript)(
  'on a terminal: a call cancelled before its reply began is recorded as cancelled all the same',
  async () => {
    const chat = terminalChat(['--provider', 'openai-compatible', '--model', 'fake'], {
      OPENAI_BASE_URL: `${server.url}/v1`,
      AGENT_DB: tempDb(),
    });
    await chat.waitFor(/Ctrl-D to leave/);
    const sent = server.requests.length;
    chat.type('stay silent\r');
    // Ctrl-C once the request has reached the server, which will never answer it.
    while (server.requests.length === sent) await new Promise((r) => setImmediate(r));
    let mark = chat.mark();
    chat.type('\x03');
    await chat.waitFor(/cancelled; the conversation is as it was before this message/, mark);
    mark = chat.mark();
    chat.type('/cost\r');
    await chat.waitFor(/This session: 1 model call\(s\)/, mark);
    chat.type('\x04');
    expect(await chat.exited).toBe(0);
  },
);
