import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough, Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Keyboard } from '../../src/cli/chat/interactive.js';
import { tempDb } from '../support/cli.js';
import { hasScript, terminalChat } from '../support/pty.js';
import { chatSse } from '../support/sse-builders.js';

// Type-ahead: lines typed while a turn runs are kept and sent after it, in order, each as its own
// message; nothing typed is dropped. First the keyboard on its own, then the chat on a real pty.

/** A keyboard over an in-memory terminal: `type` is what the user's keys send, `screen` what they see. */
function fakeTerminal() {
  const input = new PassThrough();
  let screen = '';
  const output = new Writable({
    write(chunk, _encoding, done) {
      screen += chunk;
      done();
    },
  });
  Object.assign(output, { columns: 80, rows: 24, isTTY: true });
  const queued: string[] = [];
  let interrupts = 0;
  const keyboard = new Keyboard(input, output as unknown as NodeJS.WriteStream, {
    queued: (line) => queued.push(line),
    interrupt: () => interrupts++,
  });
  return {
    keyboard,
    queued,
    interrupts: () => interrupts,
    type: (keys: string) => input.write(keys),
    /** The screen's text, without the cursor movements readline draws with. */
    screen: () => screen.replace(/\x1b\[[0-9;]*[A-Za-z]/g, ''),
    /** Lets readline take in what was typed. */
    settle: () => new Promise((r) => setImmediate(r)),
  };
}

describe('the keyboard', () => {
  it('keeps lines typed while busy, in order, without echoing them, and reads them one by one', async () => {
    const t = fakeTerminal();
    const first = t.keyboard.next('› ');
    t.type('first question\r');
    expect(await first).toBe('first question');

    // A turn is running: nothing reads, so lines are kept, and the answer on screen is left alone.
    const before = t.screen();
    t.type('second\r');
    t.type('/cost\r');
    await t.settle();
    expect(t.queued).toEqual(['second', '/cost']);
    expect(t.screen()).toBe(before);

    // Afterwards each comes back in order, shown after the prompt as if typed there.
    expect(await t.keyboard.next('› ')).toBe('second');
    expect(await t.keyboard.next('› ')).toBe('/cost');
    expect(t.screen().slice(before.length)).toBe('› second\n› /cost\n');
    t.keyboard.close();
  });

  it('takes a confirmation’s answer from the line typed after it appears, never from the queue', async () => {
    const t = fakeTerminal();
    const first = t.keyboard.next('› ');
    t.type('delete the notes\r');
    await first;
    t.type('yes\r'); // typed ahead before any question was asked: a message, not an answer
    t.type('half a');
    await t.settle();

    const answer = t.keyboard.ask('Run delete? [y/N] ');
    await t.settle();
    expect(t.screen()).toMatch(/Run delete\? \[y\/N\] $/); // the half-typed line is not in the answer
    t.type('n\r');
    expect(await answer).toBe('n');

    expect(await t.keyboard.next('› ')).toBe('yes');
    // The half-typed line comes back at the next fresh prompt, to be finished there.
    const next = t.keyboard.next('› ');
    await t.settle();
    expect(t.screen()).toMatch(/› half a$/);
    t.type(' thought\r');
    expect(await next).toBe('half a thought');
    t.keyboard.close();
  });

  it('Ctrl-C at a confirmation declines it; Ctrl-D sends what was typed ahead before ending', async () => {
    const t = fakeTerminal();
    const answer = t.keyboard.ask('Run delete? [y/N] ');
    t.type('\x03');
    await t.settle();
    expect(t.interrupts()).toBe(1);
    t.keyboard.cancelAsk();
    expect(await answer).toBeNull();

    t.type('one more thing\r');
    t.type('\x04'); // Ctrl-D on an empty line while busy
    await t.settle();
    expect(await t.keyboard.next('› ')).toBe('one more thing');
    expect(await t.keyboard.next('› ')).toBeNull();
  });
});

// ---------------------------------------------------------------------------------------------------
// The chat on a real pseudo-terminal, through util-linux `script`, against a server whose first answer
// streams its start and then waits until the test lets it finish.

interface SlowServer {
  url: string;
  /** The last user message of each request, in the order the requests came. */
  questions: string[];
  bodies: any[];
  /** Lets the held answer finish. */
  release(): void;
  close(): Promise<void>;
}

async function startSlowServer(): Promise<SlowServer> {
  const questions: string[] = [];
  const bodies: any[] = [];
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => {
      raw += c;
    });
    req.on('end', async () => {
      const body = JSON.parse(raw);
      bodies.push(body);
      const question = body.messages.at(-1).content as string;
      questions.push(question);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      // A whole first line before any wait: a terminal shows a reply's Markdown line by line as each completes.
      const frames = chatSse({ text: `Answer to "${question}",\nwritten out at some length.` }).split('\n\n');
      if (/slowly/.test(question)) {
        // The start of the answer, then a wait: the user types while it is still streaming.
        res.write(`${frames.slice(0, 4).join('\n\n')}\n\n`);
        await held;
        res.end(`${frames.slice(4).join('\n\n')}`);
      } else res.end(frames.join('\n\n'));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    questions,
    bodies,
    release: () => release(),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let server: SlowServer;
beforeEach(async () => {
  server = await startSlowServer();
});
afterEach(() => server.close());

function startChat() {
  return terminalChat(['--provider', 'openai-compatible', '--model', 'fake'], {
    OPENAI_BASE_URL: `${server.url}/v1`,
    AGENT_DB: tempDb(),
  });
}

describe.skipIf(!hasScript)('the chat on a terminal', () => {
  it('sends two questions typed while the first answer is still streaming, in order, after it', async () => {
    const chat = startChat();
    await chat.waitFor(/Ctrl-D to leave/);
    chat.type('tell me slowly\r');
    await chat.waitFor(/Answer to "tell me slowly"/);

    const mark = chat.out().length;
    chat.type('second question\r');
    chat.type('third question\r');
    await chat.waitFor(/queued: second question[\s\S]*queued: third question/, mark);
    // Typed ahead: not echoed into the answer (only the note says it was kept), not sent yet.
    expect(
      chat
        .out()
        .slice(mark)
        .match(/second question/g),
    ).toHaveLength(1);
    expect(server.questions).toEqual(['tell me slowly']);

    server.release();
    await chat.waitFor(/Answer to "third question"/, mark);
    expect(server.questions).toEqual(['tell me slowly', 'second question', 'third question']);
    // Each went as its own message, after the exchange before it.
    const roles = server.bodies[2].messages.map((m: any) => `${m.role}:${m.content}`);
    expect(roles).toEqual([
      expect.stringMatching(/^system:/),
      'user:tell me slowly',
      expect.stringMatching(/^assistant:Answer to "tell me slowly"/),
      'user:second question',
      expect.stringMatching(/^assistant:Answer to "second question"/),
      'user:third question',
    ]);
    // The transcript reads as if each had been typed at its prompt.
    const plain = chat
      .out()
      .slice(mark)
      .replace(/\x1b\[[0-9;]*[A-Za-z]/g, '');
    expect(plain).toMatch(
      /› second question\r?\nAnswer to "second question",\r?\nwritten out at some length\.\r?\n› third question\r?\nAnswer to "third question"/,
    );

    chat.type('\x04');
    expect(await chat.exited).toBe(0);
  });

  it('Ctrl-C cancels only the running turn: the lines typed ahead still go', async () => {
    const chat = startChat();
    await chat.waitFor(/Ctrl-D to leave/);
    chat.type('tell me slowly\r');
    await chat.waitFor(/Answer to "tell me slowly"/);
    const mark = chat.out().length;
    chat.type('what next\r');
    await chat.waitFor(/queued: what next/, mark);
    chat.type('\x03');
    await chat.waitFor(
      /cancelled; the conversation is as it was before this message[\s\S]*Answer to "what next"/,
      mark,
    );
    // The cancelled exchange was dropped from the history; the queued line went on its own.
    expect(server.bodies[1].messages.map((m: any) => m.role)).toEqual(['system', 'user']);
    expect(server.questions).toEqual(['tell me slowly', 'what next']);
    chat.type('\x04');
    expect(await chat.exited).toBe(0);
  });

  it('Ctrl-D while lines are queued sends them before leaving', async () => {
    const chat = startChat();
    await chat.waitFor(/Ctrl-D to leave/);
    chat.type('tell me slowly\r');
    await chat.waitFor(/Answer to "tell me slowly"/);
    const mark = chat.out().length;
    chat.type('last words\r');
    await chat.waitFor(/queued: last words/, mark);
    chat.type('\x04');
    await new Promise((r) => setTimeout(r, 100));
    server.release();
    expect(await chat.exited).toBe(0);
    expect(server.questions).toEqual(['tell me slowly', 'last words']);
    expect(chat.out().slice(mark)).toMatch(/Answer to "last words"[\s\S]*This session: 2 model call/);
  });
});
