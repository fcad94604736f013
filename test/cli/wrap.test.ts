import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { painter, SGR, visibleLength } from '../../src/cli/markdown/palette.js';
import { MarkdownStream } from '../../src/cli/markdown/stream.js';
import { wrapLine } from '../../src/cli/markdown/wrap.js';

// Word wrap for the terminal: lines break at spaces, words stay whole, indentation carries on.

const ANSI = /\u001b\[[0-9;]*m/g;
const plain = (s: string) => s.replace(ANSI, '');
const words = (s: string) => plain(s).split(/\s+/).filter(Boolean);

/** A word: printable characters without spaces, some long enough to pass any line (a URL). */
const word = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9.,;:!?$%'"()-]{1,12}$/),
  fc.stringMatching(/^https:\/\/[a-z]{5,60}\.example\/[a-z0-9/]{0,40}$/),
);
/** A word, styled or not, as the renderer paints it: an escape to open, a reset to close. */
const styled = fc
  .tuple(word, fc.constantFrom(undefined, SGR.bold, SGR.underline, `${SGR.bold};${SGR.cyan}`))
  .map(([w, code]) => (code ? `\u001b[${code}m${w}\u001b[0m` : w));
const text = fc
  .array(fc.tuple(styled, fc.constantFrom(' ', ' ', '  ')), { minLength: 1, maxLength: 40 })
  .map((parts) =>
    parts
      .map(([w, gap]) => w + gap)
      .join('')
      .trimEnd(),
  );
const hang = fc.constantFrom(
  { first: '', rest: '' },
  { first: '• ', rest: '  ' },
  { first: '    ◦ ', rest: '      ' },
  { first: '│ ', rest: '│ ' },
  { first: '10. ', rest: '    ' },
);

describe('wrapLine', () => {
  it('keeps every line within the width unless it holds a single word, and every word whole, in order', () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 1, max: 120 }), hang, (t, width, h) => {
        const out = wrapLine(t, width, h).split('\n');
        out.forEach((line, i) => {
          const prefix = i === 0 ? h.first : h.rest;
          expect(plain(line).startsWith(prefix)).toBe(true);
          const body = plain(line).slice(prefix.length);
          if (visibleLength(line) > width) expect(words(body).length).toBeLessThanOrEqual(1);
        });
        const body = out.map((line, i) => plain(line).slice((i === 0 ? h.first : h.rest).length));
        expect(words(body.join(' '))).toEqual(words(t));
        // No line starts or ends with a space it broke at.
        for (const b of body.slice(1)) expect(b).not.toMatch(/^ /);
      }),
    );
  });

  it('never splits a word shorter than the line: each line takes as many words as fit', () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 10, max: 120 }), (spaced, width) => {
        const t = spaced.replace(/ +/g, ' ');
        const out = wrapLine(t, width).split('\n');
        // The next line's first word would not have fitted on the line before.
        for (let i = 1; i < out.length; i++) {
          const next = words(out[i]!)[0]!;
          expect(visibleLength(out[i - 1]!) + 1 + [...next].length).toBeGreaterThan(width);
        }
      }),
    );
  });

  it('closes a style at a break and opens it again after the indent', () => {
    const line = `\u001b[4mone two three four\u001b[0m`;
    expect(wrapLine(line, 12, { first: '• ', rest: '  ' }).split('\n')).toEqual([
      '• \u001b[4mone two\u001b[0m',
      '  \u001b[4mthree four\u001b[0m',
    ]);
  });

  it('lets a URL longer than the line run on a line of its own', () => {
    const url = 'https://example.com/a/very/long/path/that/runs/past/the/edge';
    expect(wrapLine(`see ${url} for more`, 20).split('\n')).toEqual(['see', url, 'for more']);
  });

  it('leaves a line alone when the width is unknown (0)', () => {
    expect(wrapLine('a '.repeat(100).trim(), 0)).toBe('a '.repeat(100).trim());
  });
});

describe('terminal Markdown, wrapped', () => {
  const render = (md: string, width: number) => {
    const stream = new MarkdownStream(painter(false), () => width);
    return stream.push(md) + stream.end();
  };

  it('breaks paragraphs at spaces, never inside a word', () => {
    const out = render('Meals are separate from the hotel limit and are paid per day.', 20);
    expect(out).toBe('Meals are separate\nfrom the hotel limit\nand are paid per\nday.\n');
  });

  it('continues a bullet under its text, a numbered item under its text, a quote with its bar', () => {
    expect(render('- first item that is long enough to wrap here', 20)).toBe(
      '• first item that is\n  long enough to\n  wrap here\n',
    );
    expect(render('  - nested item that wraps around', 20)).toBe('  ◦ nested item that\n    wraps around\n');
    expect(render('12. numbered item that wraps', 16)).toBe('12. numbered\n    item that\n    wraps\n');
    expect(render('> quoted words that wrap around', 16)).toBe('│ quoted words\n│ that wrap\n│ around\n');
  });

  it('follows the width as it changes between lines (a resized terminal)', () => {
    let width = 40;
    const stream = new MarkdownStream(painter(false), () => width);
    const first = stream.push('one two three four five six seven\n');
    width = 10;
    const second = stream.push('one two three four five six seven\n');
    expect(first).toBe('one two three four five six seven\n');
    expect(second).toBe('one two\nthree four\nfive six\nseven\n');
  });

  it('wraps streamed text exactly as the whole text', () => {
    fc.assert(
      fc.property(
        text,
        fc.integer({ min: 10, max: 80 }),
        fc.integer({ min: 1, max: 30 }),
        (t, width, size) => {
          const md = `- ${plain(t)}\n\n> ${plain(t)}\n\n${plain(t)}`;
          const stream = new MarkdownStream(painter(false), () => width);
          let out = '';
          for (let i = 0; i < md.length; i += size) out += stream.push(md.slice(i, i + size));
          out += stream.end();
          expect(out).toBe(render(md, width));
        },
      ),
      { numRuns: 50 },
    );
  });
});
