import { describe, expect, it } from 'vitest';
import { TurnRenderer } from '../../src/cli/chat/turn-render.js';
import { MarkdownStream } from '../../src/cli/markdown/index.js';
import { painter } from '../../src/cli/markdown/palette.js';
import { cells, PartialLine } from '../../src/cli/markdown/partial-line.js';

// The line a reply is in the middle of is shown as it streams, and erased when the Markdown renderer
// draws it: on a terminal the screen ends exactly as if the reply had come whole.

/** A stream that records what is written, as a terminal of `columns` would get it. */
function terminal(columns: number | undefined) {
  const writes: string[] = [];
  const stream = {
    isTTY: true,
    columns,
    write: (s: string) => {
      writes.push(s);
      return true;
    },
  } as unknown as NodeJS.WriteStream;
  return { stream, writes, text: () => writes.join('') };
}

/**
 * What a terminal `columns` wide shows after `output`: text wraps at the edge (a full row waits for the
 * next character before it wraps); \r, \n, cursor up (ESC [n A) and erase below (ESC [J) act; colours
 * are dropped.
 */
function screen(output: string, columns: number): string {
  const rows: string[][] = [[]];
  let row = 0;
  let col = 0;
  const tokens = output.replace(/\u001b\[[0-9;]*m/g, '').match(/\u001b\[\d*[AJ]|[\s\S]/gu) ?? [];
  for (const t of tokens) {
    if (t === '\n') {
      row++;
      col = 0;
      rows[row] ??= [];
    } else if (t === '\r') col = 0;
    else if (/^\u001b\[\d*A$/.test(t)) row = Math.max(0, row - Number(t.slice(2, -1) || 1));
    else if (t === '\u001b[J') {
      rows[row]!.length = col;
      rows.length = row + 1;
    } else {
      if (col >= columns) {
        row++;
        col = 0;
        rows[row] ??= [];
      }
      rows[row]![col++] = t;
    }
  }
  return rows.map((r) => r.join('')).join('\n');
}

const REPLY =
  'Paris is the **capital** of France, and it has been since the tenth century or so.\n\n- one\n- two';

describe('the partial line', () => {
  it('shows the new end only, counts wrapped rows to erase them, and shows nothing without a width', () => {
    const t = terminal(10);
    const line = new PartialLine(t.stream);
    line.show('Hello');
    line.show('Hello wor');
    expect(t.writes).toEqual(['Hello', ' wor']);
    line.clear();
    expect(t.writes.at(-1)).toBe('\r\u001b[J');
    line.show('x'.repeat(25));
    line.clear();
    expect(t.writes.at(-1)).toBe('\r\u001b[2A\u001b[J');
    line.show('y'.repeat(20));
    line.clear();
    expect(t.writes.at(-1)).toBe('\r\u001b[1A\u001b[J');
    const none = terminal(undefined);
    new PartialLine(none.stream).show('text');
    expect(none.writes).toEqual([]);
    expect(cells('退款 ok')).toBe(7);
  });

  it('is what the Markdown renderer will draw as a line of text, never a table row or a fence', () => {
    const md = new MarkdownStream(painter(false));
    md.push('Hello **wor');
    expect(md.pending()).toBe('Hello **wor');
    md.push('ld**\n| a | b');
    expect(md.pending()).toBe('');
    md.push(' |\n\n```');
    expect(md.pending()).toBe('');
  });

  it('a reply streamed a character at a time ends on screen exactly as the whole reply', () => {
    for (const columns of [30, 80]) {
      const whole = terminal(columns);
      const drawn = new TurnRenderer(whole.stream, terminal(columns).stream);
      drawn.handle({ type: 'text', delta: REPLY });
      drawn.finish();

      const streamed = terminal(columns);
      const renderer = new TurnRenderer(streamed.stream, terminal(columns).stream);
      const seen: string[] = [];
      for (const ch of REPLY) {
        renderer.handle({ type: 'text', delta: ch });
        seen.push(screen(streamed.text(), columns));
      }
      renderer.finish();
      // Meanwhile the line being written was on screen as it came.
      expect(seen.some((s) => s.endsWith('Paris is the **capi'))).toBe(true);
      expect(screen(streamed.text(), columns)).toBe(screen(whole.text(), columns));
      expect(screen(whole.text(), columns).replace(/\s+/g, ' ')).toContain('capital of France');
    }
  });
});
