import { spawn } from 'node:child_process';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { BIN, cleanEnv, ROOT, runCli, tempDb } from '../support/cli.js';
import { type RecordedRequest, sse, startFakeServer } from '../support/fake-server.js';
import { hasScript, terminalChat } from '../support/pty.js';
import { sqliteStore } from '../support/stores.js';

// Markdown on a real pseudo-terminal: chat replies, reports --show and sessions --show are rendered; a
// reply streamed in awkward pieces looks exactly like the same reply sent whole.

const REPLY = [
  '## Limits',
  '',
  'Agents refund **up to $50** [1].',
  '',
  '| Role | Limit |',
  '| --- | ---: |',
  '| Agent | $50 |',
  '| Lead | $500 |',
  '',
  '```ts',
  'const x = 1;',
  '```',
  'Done.',
].join('\n');

/** Cut inside `**`, inside a table row and inside the fence (its opening and its closing marker). */
const PIECES = (() => {
  const cuts = [
    REPLY.indexOf('up to') + 2,
    REPLY.indexOf('| Ag') + 3,
    REPLY.indexOf('```ts') + 4,
    REPLY.indexOf('x =') + 1,
    REPLY.lastIndexOf('```') + 2,
  ];
  return [0, ...cuts, REPLY.length]
    .slice(1)
    .map((end, i, ends) => REPLY.slice(i === 0 ? 0 : ends[i - 1], end));
})();

/** An OpenAI-compatible stream whose text arrives in exactly these pieces. */
function replySse(pieces: string[]): string {
  const frame = (delta: unknown, finish: string | null = null, usage?: unknown) =>
    `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'fake', choices: usage ? [] : [{ index: 0, delta, finish_reason: finish }], ...(usage ? { usage } : {}) })}\n\n`;
  return [
    frame({ role: 'assistant', content: '' }),
    ...pieces.map((content) => frame({ content })),
    frame({}, 'stop'),
    frame({}, null, { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 }),
    'data: [DONE]\n\n',
  ].join('');
}

/** Any `agent` command on a terminal: everything it printed, once it exits. */
function onTerminal(args: string[], env: Record<string, string>): Promise<string> {
  const quoted = [process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const child = spawn('script', ['-qefc', quoted, '/dev/null'], {
    cwd: ROOT,
    env: cleanEnv({ COLUMNS: '100', LINES: '30', TERM: 'xterm', ...env }),
  });
  let out = '';
  child.stdout.on('data', (d) => {
    out += d;
  });
  return new Promise((resolve) => child.on('close', () => resolve(out)));
}

let server: Awaited<ReturnType<typeof startFakeServer>>;
beforeEach(async () => {
  server = await startFakeServer([], (req: RecordedRequest) => {
    const last = (req.body as any).messages.at(-1);
    return sse(replySse(/split/.test(last.content) ? PIECES : [REPLY]));
  });
});
afterEach(() => server.close());

const RENDERED = /\u001b\[1;36mLimits[\s\S]*?Done\./;

it.skipIf(!hasScript)(
  'a chat reply streamed in awkward pieces renders the same as the whole reply',
  async () => {
    expect(PIECES.join('')).toBe(REPLY);
    expect(PIECES[0]).toMatch(/\*\*up$/);
    const db = tempDb();
    const chat = terminalChat(['--provider', 'openai-compatible', '--model', 'fake'], {
      OPENAI_BASE_URL: `${server.url}/v1`,
      AGENT_DB: db,
    });
    await chat.waitFor(/Ctrl-D to leave/);
    let mark = chat.mark();
    chat.type('split please\r');
    await chat.waitFor(/Done\./, mark);
    const split = RENDERED.exec(chat.out().slice(mark))?.[0];
    mark = chat.mark();
    chat.type('whole please\r');
    await chat.waitFor(/Done\./, mark);
    const whole = RENDERED.exec(chat.out().slice(mark))?.[0];
    chat.type('\x04');
    expect(await chat.exited).toBe(0);

    expect(split).toBeDefined();
    expect(split).toBe(whole);
    const text = split!.replace(/\u001b\[[0-9;]*m/g, '');
    expect(text).toContain('Agents refund up to $50 [1].');
    expect(text).toContain(' Role  │ Limit\r\n───────┼───────\r\n Agent │   $50\r\n Lead  │  $500');
    expect(text).toContain('  ┌ ts\r\n  │ const x = 1;\r\n  └');
    expect(split).toContain('\u001b[1mup to $50\u001b[0m');
    expect(split).toContain('\u001b[2m[1]\u001b[0m');

    // The saved session shows the same rendering again; --raw keeps the Markdown.
    const shown = await onTerminal(['sessions', '--show', '1'], { AGENT_DB: db });
    expect(shown.replace(/\u001b\[[0-9;]*m/g, '')).toContain(' Agent │   $50');
    const raw = await onTerminal(['sessions', '--show', '1', '--raw'], { AGENT_DB: db });
    expect(raw).toContain('| Agent | $50 |');
  },
);

it.skipIf(!hasScript)(
  'reports --show renders on a terminal; --raw, AGENT_RAW=1 and a pipe keep the Markdown; NO_COLOR keeps the layout',
  async () => {
    const db = tempDb();
    const store = await sqliteStore(db);
    await store.runs.save({
      question: 'Limits?',
      mode: 'model',
      answer: REPLY,
      costUsd: 0.01,
      result: { question: 'Limits?', answer: REPLY, sources: [{ n: 1, title: 'Policy', location: '/p.md' }] },
    });
    await store.close();

    const rendered = await onTerminal(['reports', '--show', '1'], { AGENT_DB: db });
    expect(rendered).toMatch(RENDERED);
    expect(rendered).not.toContain('**');
    expect(rendered).toContain('\u001b[35mconst\u001b[0m');

    for (const [args, env] of [
      [['--raw'], {}],
      [[], { AGENT_RAW: '1' }],
    ] as const) {
      const raw = await onTerminal(['reports', '--show', '1', ...args], { AGENT_DB: db, ...env });
      expect(raw).toContain('Agents refund **up to $50** [1].');
      expect(raw).toContain('```ts');
    }
    const piped = await runCli(['reports', '--show', '1'], { env: { AGENT_DB: db } });
    expect(piped.stdout).toContain(REPLY);

    const noColor = await onTerminal(['reports', '--show', '1'], { AGENT_DB: db, NO_COLOR: '1' });
    expect(noColor).not.toContain('\u001b[');
    expect(noColor).toContain('Limits\r\n──────\r\n');
    expect(noColor).toContain(' Lead  │  $500');
  },
);
