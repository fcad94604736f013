import { afterEach, expect, it } from 'vitest';
import { tempDb } from '../support/cli.js';
import { startOllamaServer } from '../support/ollama-server.js';
import { hasScript, terminalAgent } from '../support/pty.js';

// A slow local model on a real pseudo-terminal: a spinner until the first token, then the reply as it
// streams, the line it is in the middle of included (before, a line showed only once it ended).

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
});

it.skipIf(!hasScript)(
  'agent chat --provider ollama: a spinner, then the line being written, then the rendered reply',
  async () => {
    let release!: () => void;
    const later = new Promise<void>((resolve) => {
      release = resolve;
    });
    const ollama = await startOllamaServer({
      models: [{ name: 'llama3.1', context: 131_072 }],
      brain: () => ({
        firstPiece: 'Paris is the **capi',
        wait: later,
        text: 'tal** of France.\n\nIt has been since 987.',
      }),
    });
    close = ollama.close;
    const chat = terminalAgent(
      ['chat', '--provider', 'ollama'],
      { OLLAMA_HOST: ollama.host, AGENT_DB: tempDb() },
      { columns: 60 },
    );
    await chat.waitFor(/Ctrl-D to leave/);
    const mark = chat.mark();
    chat.type('What is the capital of France?\r');
    await chat.waitFor(/Thinking…/, mark);
    // The first piece is on screen while the model is still writing its line.
    await chat.waitFor(/Paris is the \*\*capi/, mark);
    expect(chat.out().slice(mark)).not.toContain('of France.');
    release();
    // Then erased, and the finished line drawn rendered (bold, no asterisks), the next one after it.
    await chat.waitFor(/It has been since 987\./, mark);
    const end = chat.out().slice(chat.out().lastIndexOf('Paris is the **capi'));
    expect(end).toMatch(/\r\u001b\[J[^*]*Paris is the \u001b\[1mcapital\u001b\[0m of France\./);
    chat.type('\x04');
    expect(await chat.exited).toBe(0);
  },
  60_000,
);
