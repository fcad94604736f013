import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rawWanted, terminalMarkdown } from '../../src/cli/markdown/index.js';
import { painter } from '../../src/cli/markdown/palette.js';
import { MarkdownStream } from '../../src/cli/markdown/stream.js';
import { clean } from '../../src/cli/style.js';

// Markdown rendered for a terminal: layout, colour, and the same result however the text is streamed.

const REPLY = `# Refund limits

Agents refund **up to $50** and _leads_ up to \`$500\` [1][2, 3].

| Role | Limit | Note |
| :--- | ---: | :---: |
| Agent | $50 | see [policy](https://example.com/p) |
| Team lead | $500 | \`a|b\` |

- first
  - nested [4]
    1. deep
- [x] done

> A quote.

\`\`\`ts
const limit: number = 50; // dollars
\`\`\`

---
See <https://example.com/refunds>.`;

const render = (text: string, color = true) => {
  const md = new MarkdownStream(painter(color), () => 80);
  return md.push(text) + md.end();
};
const ANSI = /\u001b\[[0-9;]*m/g;
const plain = (s: string) => s.replace(ANSI, '');

describe('terminal Markdown', () => {
  it('lays out headings, emphasis, tables, lists, quotes, code and links', () => {
    const out = plain(render(REPLY));
    expect(out).toContain('Refund limits\n═════════════\n');
    expect(out).toContain('Agents refund up to $50 and leads up to $500 [1][2, 3].');
    expect(out).toContain(
      [
        ` Role      │ Limit │${' '.repeat(16)}Note`,
        `${'─'.repeat(11)}┼${'─'.repeat(7)}┼${'─'.repeat(36)}`,
        ' Agent     │   $50 │ see policy (https://example.com/p)',
        ' Team lead │  $500 │                a|b',
      ].join('\n'),
    );
    expect(out).toContain('• first\n  ◦ nested [4]\n    1. deep\n• ☒ done\n');
    expect(out).toContain('│ A quote.\n');
    expect(out).toContain('  ┌ ts\n  │ const limit: number = 50; // dollars\n  └\n');
    expect(out).toContain('─'.repeat(60));
    expect(out).toContain('See https://example.com/refunds.');
  });

  it('shows a table wider than the terminal as one block of "Header: value" lines per row', () => {
    const md = new MarkdownStream(painter(false), () => 30);
    const table =
      '| Role | What they may refund |\n|---|---|\n| Agent | up to $50 without anyone else |\n| Lead | up to $500 |\n';
    expect(md.push(table) + md.end()).toBe(
      'Role: Agent\nWhat they may refund: up to $50 without anyone else\n──────────────────────────────\nRole: Lead\nWhat they may refund: up to $500\n',
    );
  });

  it('colours headings, bold, citations (dimmed) and code by its language', () => {
    const out = render(REPLY);
    expect(out).toContain('\u001b[1;35mRefund limits\u001b[0m');
    expect(out).toContain('\u001b[1mup to $50\u001b[0m');
    expect(out).toContain('\u001b[3mleads\u001b[0m');
    expect(out).toContain('\u001b[2m[1]\u001b[0m\u001b[2m[2, 3]\u001b[0m');
    expect(out).toContain('\u001b[35mconst\u001b[0m');
    expect(out).toContain('\u001b[90m// dollars\u001b[0m');
  });

  it('without colour keeps the layout and writes no escape sequence', () => {
    const out = render(REPLY, false);
    expect(out).not.toContain('\u001b');
    expect(out).toBe(plain(render(REPLY)));
  });

  it('renders the same however the reply is split into chunks', () => {
    const whole = render(REPLY);
    // Every single split point, including inside `**`, a table row and a fence.
    for (let i = 1; i < REPLY.length; i++) {
      const md = new MarkdownStream(painter(true), () => 80);
      expect(md.push(REPLY.slice(0, i)) + md.push(REPLY.slice(i)) + md.end()).toBe(whole);
    }
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: REPLY.length - 1 }), { maxLength: 30 }), (cuts) => {
        const points = [0, ...[...new Set(cuts)].sort((a, b) => a - b), REPLY.length];
        const md = new MarkdownStream(painter(true), () => 80);
        let out = '';
        for (let k = 1; k < points.length; k++) out += md.push(REPLY.slice(points[k - 1], points[k]));
        expect(out + md.end()).toBe(whole);
      }),
    );
  });

  it('draws each line when it completes, a table or fence only when it closes', () => {
    const md = new MarkdownStream(painter(false), () => 80);
    expect(md.push('Hello **wor')).toBe('');
    expect(md.push('ld**\n| a | b |\n|---|---|\n| 1 |')).toBe('Hello world\n');
    expect(md.push(' 2 |\n')).toBe('');
    expect(md.push('\n```\ncode')).toBe(' a │ b\n───┼───\n 1 │ 2\n\n');
    expect(md.push('\n```\n')).toBe('  ┌\n  │ code\n  └\n');
    expect(md.push('unfinished [1')).toBe('');
    expect(md.end()).toBe('unfinished [1\n');
  });

  it('adds no escape sequence of its own beyond colours, and a model cannot smuggle one in', () => {
    const hostile = `# Title \u001b]0;pwned\u0007\n**bold\u001b[2J** [1]\n\`\`\`js\nx = "\u001b]52;c;AAAA\u0007"\n\`\`\`\n`;
    const out = render(clean(hostile));
    expect(out.replace(ANSI, '')).not.toContain('\u001b');
  });

  it('is off on a pipe and when raw Markdown is asked for', () => {
    const tty = { isTTY: true, columns: 80 } as unknown as NodeJS.WriteStream;
    const pipe = { isTTY: false } as unknown as NodeJS.WriteStream;
    expect(terminalMarkdown(pipe, false, {})).toBeUndefined();
    expect(terminalMarkdown(tty, true, {})).toBeUndefined();
    expect(terminalMarkdown(tty, false, { AGENT_RAW: '1' })).toBeUndefined();
    expect(terminalMarkdown(tty, false, { AGENT_RAW: '0' })).toBeInstanceOf(MarkdownStream);
    expect(rawWanted(undefined, {})).toBe(false);
  });
});
