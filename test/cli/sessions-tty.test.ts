import { afterEach, beforeEach, expect, it } from 'vitest';
import { runCli, tempDb } from '../support/cli.js';
import { type RecordedRequest, sse, startFakeServer } from '../support/fake-server.js';
import { hasScript, terminalChat } from '../support/pty.js';
import { chatSse } from '../support/sse-builders.js';

// Sessions in the interactive chat, on a real pseudo-terminal.

let server: Awaited<ReturnType<typeof startFakeServer>>;
beforeEach(async () => {
  server = await startFakeServer([], (req: RecordedRequest) => {
    const last = (req.body as any).messages.at(-1);
    if (last.role === 'user' && /slow/.test(last.content)) {
      // A whole first line: a terminal shows a reply's Markdown rendered line by line as each completes.
      const partial = chatSse({ text: 'Thinking about\nit slowly' }).split('\n\n').slice(0, 3).join('\n\n');
      return { ...sse(partial), hang: true };
    }
    if (last.role === 'user' && /1234/.test(last.content))
      return sse(chatSse({ calls: [{ id: 'c1', name: 'calculator', args: { expression: '1234*5678' } }] }));
    if (last.role === 'user') return sse(chatSse({ text: `You said: ${last.content}.` }));
    return sse(chatSse({ text: `The answer is ${last.content}.` }));
  });
});
afterEach(() => server.close());

const chatOn = (db: string, args: string[]) =>
  terminalChat(args, { OPENAI_BASE_URL: `${server.url}/v1`, AGENT_DB: db });

const roles = () => (server.requests.at(-1)!.body as any).messages.map((m: any) => m.role);

it.skipIf(!hasScript)(
  'on a terminal: a session resumed with --continue carries on; a cancelled turn is not saved; /clear starts anew',
  async () => {
    const db = tempDb();
    const first = chatOn(db, ['--provider', 'openai-compatible', '--model', 'fake']);
    await first.waitFor(/Ctrl-D to leave/);
    first.type('what is 1234*5678\r');
    await first.waitFor(/The answer is 7006652\./);
    let mark = first.mark();
    first.type('/session\r');
    await first.waitFor(/This is session #1: agent chat --session 1 resumes it\./, mark);
    first.type('\x04');
    expect(await first.exited).toBe(0);

    const second = chatOn(db, ['--continue']);
    await second.waitFor(/Resuming session #1 \(1 exchange\(s\), last used [^)]+\)\.[\s\S]*Ctrl-D to leave/);
    second.type('what did I ask\r');
    await second.waitFor(/You said: what did I ask\./);
    // The first process's exchange is in the history sent by the second.
    expect(roles()).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'user']);
    expect((server.requests.at(-1)!.body as any).messages[1].content).toBe('what is 1234*5678');
    expect((server.requests.at(-1)!.body as any).model).toBe('fake');

    mark = second.mark();
    second.type('go slow please\r');
    await second.waitFor(/Thinking about/, mark);
    second.type('\x03');
    await second.waitFor(/cancelled; the conversation is as it was before this message/, mark);

    mark = second.mark();
    second.type('/clear\r');
    await second.waitFor(/Conversation cleared: session #1 stays saved/, mark);
    second.type('hello again\r');
    await second.waitFor(/You said: hello again\./, mark);
    expect(roles()).toEqual(['system', 'user']);
    second.type('\x04');
    expect(await second.exited).toBe(0);

    const list = await runCli(['sessions', '--json'], { env: { AGENT_DB: db } });
    expect(JSON.parse(list.stdout).map((s: any) => [s.id, s.exchanges, s.firstMessage])).toEqual([
      [2, 1, 'hello again'],
      [1, 2, 'what is 1234*5678'],
    ]);
  },
);
