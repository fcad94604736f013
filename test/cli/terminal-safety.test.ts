import { describe, expect, it } from 'vitest';
import { clean, streamCleaner } from '../../src/cli/style.js';
import { runCli, tempDb } from '../support/cli.js';
import { sse, startFakeServer } from '../support/fake-server.js';
import { chatSse } from '../support/sse-builders.js';

// Text from models, pages and saved chats never reaches the terminal as escape sequences.

const EVIL =
  'a \u001b]52;c;SGVsbG8=\u0007 b \u001b]0;PWNED\u0007 c \u001b[2J d \u001b[31mred\u001b[0m e\r\u0008';

describe('terminal safety', () => {
  it('clean() drops escape sequences and control characters, keeping newlines and tabs', () => {
    expect(clean(EVIL)).toBe('a  b  c  d red e');
    expect(clean('line 1\n\tline 2')).toBe('line 1\n\tline 2');
    // A sequence split across two streamed chunks loses its ESC, so neither half can act.
    expect(clean('x \u001b') + clean(']52;c;SGVsbG8=\u0007 y')).toBe('x ]52;c;SGVsbG8= y');
    // Streamed, the split sequence is held back until it is whole, then dropped whole.
    const stream = streamCleaner();
    expect(['x \u001b]5', '2;c;SGVs', 'bG8=\u0007 y \u001b[3', '1mred'].map(stream).join('')).toBe(
      'x  y red',
    );
  });

  it('a chat answer and the saved session print without them', async () => {
    const server = await startFakeServer([], () => sse(chatSse({ text: `Answer: ${EVIL}` })));
    try {
      const db = tempDb();
      const env = { OPENAI_BASE_URL: `${server.url}/v1`, AGENT_DB: db };
      const chat = await runCli(['chat', '--provider', 'openai-compatible', '-m', 'm'], {
        env,
        input: `hello \u001b]0;title\u0007 there\n`,
      });
      expect(chat.code).toBe(0);
      expect(chat.stdout).toContain('Answer: a  b  c  d red e');
      expect(chat.stdout).not.toMatch(/\u001b|\u0007/);
      const listed = await runCli(['sessions'], { env });
      expect(listed.stdout).toMatch(/hello\s+there/);
      const shown = await runCli(['sessions', '--show', '1'], { env });
      expect(shown.stdout).toContain('Answer: a  b  c  d red e');
      expect(`${listed.stdout}${shown.stdout}`).not.toMatch(/\u001b|\u0007/);
    } finally {
      await server.close();
    }
  });
});
