import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { runCli, tempDb } from '../support/cli.js';
import { sse, startFakeServer } from '../support/fake-server.js';
import { hasScript, shellWord, terminalAgent } from '../support/pty.js';
import { contentFolder } from '../support/research-world.js';
import { chatSse } from '../support/sse-builders.js';

// Word wrap on a real terminal (40 columns): the extractive answer breaks at spaces; a pipe and --raw
// get the text as it is.

const SENTENCE =
  'Meals are separate from the hotel limit and are reimbursed at cost up to forty dollars a day, see https://example.com/policies/travel/meals-and-incidentals-for-every-country for the rates.';
const DOCS = { 'travel.md': `# Travel\n\n${SENTENCE}\n` };
const ANSI = /\u001b\[[0-9;?]*[A-Za-z]/g;

const answerLines = (out: string) =>
  out
    .replace(ANSI, '')
    .split(/\r?\n/)
    .filter((l) => /Meals|hotel|limit|reimbursed|dollars|example\.com|rates/.test(l));

it.skipIf(!hasScript)(
  'on a terminal the answer wraps at spaces; on a pipe and with --raw it does not',
  async () => {
    const content = contentFolder(DOCS);
    const args = ['research', '--extractive', '--content', content, shellWord('What about meals?')];
    const env = { AGENT_DB: tempDb() };
    const term = terminalAgent(args, env, { columns: 40 });
    expect(await term.exited).toBe(0);
    const lines = answerLines(term.out());
    expect(lines.length).toBeGreaterThan(3);
    for (const line of lines) {
      // Longer than the line only when it is a single word (the URL, left whole).
      if ([...line].length > 40) expect(line.trim().split(/\s+/).length).toBe(1);
    }
    const text = term.out().replace(ANSI, '').replace(/\r/g, '');
    expect(text).toContain('https://example.com/policies/travel/meals-and-incidentals-for-every-country');
    expect(text).not.toMatch(/Meals a\n/);

    const piped = await runCli(args.slice(0, -1).concat('What about meals?'), { env });
    expect(piped.stdout).toContain('Meals are separate from the hotel limit and are reimbursed at cost');
    const raw = terminalAgent([...args, '--raw'], env, { columns: 40 });
    expect(await raw.exited).toBe(0);
    expect(raw.out().replace(/\r/g, '')).toContain(
      'Meals are separate from the hotel limit and are reimbursed',
    );
  },
);

it.skipIf(!hasScript)(
  'a chat reply wraps to the width the terminal has now (resized: SIGWINCH)',
  async () => {
    const long =
      'Meals are separate from the hotel limit and are reimbursed at cost up to forty dollars a day.';
    const server = await startFakeServer([], () => sse(chatSse({ text: long })));
    try {
      const dir = mkdtempSync(join(tmpdir(), 'agent-resize-'));
      const go = join(dir, 'go');
      // Waits for the test's signal, then narrows the terminal (the kernel sends SIGWINCH) and says so.
      const resize = `(while [ ! -e ${go} ]; do sleep 0.05; done; stty cols 30 < /dev/tty; echo RESIZED) &`;
      const chat = terminalAgent(
        ['chat', '--provider', 'openai-compatible', '--model', 'fake'],
        { OPENAI_BASE_URL: `${server.url}/v1`, AGENT_DB: tempDb() },
        { columns: 60, setup: resize },
      );
      const widths = (from: number) =>
        chat
          .out()
          .slice(from)
          .split(/\r?\n/)
          // What stays on screen: the text after the last return to column 1 (a spinner cleared before it).
          .map((l) => (l.split(/\r|\u001b\[1G/).at(-1) ?? '').replace(ANSI, ''))
          .filter((l) => /Meals|hotel|reimbursed|forty|day\./.test(l))
          .map((l) => [...l].length);
      await chat.waitFor(/Ctrl-D to leave/);
      let mark = chat.mark();
      chat.type('first\r');
      // The reply's line as drawn at its end (while it streams, the line is shown as it comes, unwrapped).
      await chat.waitFor(/day\.\r?\n/, mark);
      expect(Math.max(...widths(mark))).toBeLessThanOrEqual(60);
      expect(Math.max(...widths(mark))).toBeGreaterThan(30);
      writeFileSync(go, '');
      await chat.waitFor(/RESIZED/, mark);
      // The agent has seen the new size when readline redraws its prompt for it (a second prompt after the
      // reply): on a loaded machine the signal may be handled after the test reads RESIZED.
      await chat.waitFor(/day\.[\s\S]*›[\s\S]*›/, mark);
      mark = chat.mark();
      chat.type('second\r');
      await chat.waitFor(/day\.\r?\n/, mark);
      expect(widths(mark).length).toBeGreaterThan(3);
      expect(Math.max(...widths(mark))).toBeLessThanOrEqual(30);
      chat.type('\x04');
      expect(await chat.exited).toBe(0);
    } finally {
      await server.close();
    }
  },
);
