import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readPdf } from '../../../src/formats/pdf/index.js';
import { makePdf, type PdfRun } from '../../support/make-pdf.js';

// Code in a PDF: lines set in a monospaced font (Courier here) that stand as a block of their own come
// out as a fenced block with the indentation and spacing their positions give; monospaced words inside a
// paragraph stay text; a document set wholly in a monospaced font has no code blocks.

const SIZE = 10;
/** Courier's advance: 600/1000 of the size. */
const CHAR = 0.6 * SIZE;

const prose = (texts: string[], top: number): PdfRun[] =>
  texts.map((text, i) => ({ text, x: 72, y: top - i * 14, size: SIZE }));

/** Code lines as Courier runs: each run of non-space characters placed at its column. */
function code(lines: string[], top: number): PdfRun[] {
  return lines.flatMap((line, i) =>
    [...line.matchAll(/\S+(?: \S+)*/g)].map((m) => ({
      text: m[0],
      x: 72 + m.index * CHAR,
      y: top - i * 12,
      size: SIZE,
      mono: true,
    })),
  );
}

const INTRO = [
  'The function below counts the words of a file and prints',
  'how many there were, one number for every file it is given.',
];
const OUTRO = ['Run it with the names of the files as its arguments.'];

const pageWith = (listing: string[]) => [
  ...prose(INTRO, 700),
  ...code(listing, 660),
  ...prose(OUTRO, 660 - listing.length * 12 - 20),
];

const text = async (pages: PdfRun[][]) => (await readPdf(makePdf({ pages }))).pages.join('\n\n');

describe('code in a PDF', () => {
  it('fences a listing and keeps its indentation and the spacing before its comments', async () => {
    const listing = [
      'def count(path):',
      '    with open(path) as f:          # closed at the end',
      '        return len(f.read().split())',
      '',
      'for name in sys.argv[1:]:',
      '    print(name, count(name))       # one line a file',
    ];
    const out = await text([pageWith(listing)]);
    expect(out).toContain(['```', ...listing, '```'].join('\n'));
    expect(out).toContain(`${INTRO[0]}\n${INTRO[1]}\n\n\`\`\`\n`);
    expect(out).toContain(`\`\`\`\n\n${OUTRO[0]}`);
  });

  it('keeps any listing’s lines, indents and inner spaces exactly (generated listings)', async () => {
    const token = fc.stringMatching(/^[a-z_][a-z0-9_]{0,7}(?:\(\)|:|;|,)?$/);
    const line = fc.record({
      indent: fc.integer({ min: 0, max: 3 }),
      words: fc.array(token, { minLength: 1, maxLength: 4 }),
      comment: fc.option(fc.tuple(fc.integer({ min: 2, max: 12 }), token), { nil: undefined }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(line, { minLength: 2, maxLength: 8 }), async (spec) => {
        const listing = spec.map(({ indent, words, comment }) => {
          const body = `${'    '.repeat(indent)}${words.join(' ')}`;
          return comment ? `${body}${' '.repeat(comment[0])}// ${comment[1]}` : body;
        });
        // The block's own indent is relative to its leftmost line.
        const least = Math.min(...listing.map((l) => l.length - l.trimStart().length));
        const expected = listing.map((l) => l.slice(least));
        const out = await text([pageWith(expected)]);
        expect(out).toContain(['```', ...expected, '```'].join('\n'));
      }),
      { numRuns: 15 },
    );
  });

  it('leaves a monospaced word inside a paragraph as text', async () => {
    const page: PdfRun[] = [
      ...prose(INTRO, 700),
      { text: 'Call', x: 72, y: 672, size: SIZE },
      { text: 'count()', x: 72 + 24, y: 672, size: SIZE, mono: true },
      { text: 'once for each file that the user names.', x: 72 + 24 + 7 * CHAR + 3, y: 672, size: SIZE },
    ];
    const out = await text([page]);
    expect(out).not.toContain('```');
    expect(out).toMatch(/Call count\(\) once for each file/);
  });

  it('does not join a hyphen at the end of a code line to the next line', async () => {
    const out = await text([pageWith(['total = first -', '        second'])]);
    expect(out).toContain('```\ntotal = first -\n        second\n```');
  });

  it('has no code blocks in a document set wholly in a monospaced font (a text file printed)', async () => {
    const lines = [
      'Network Working Group                                   J. Postel',
      'Request for Comments: 791                                     ISI',
      '',
      '                       INTERNET PROTOCOL',
      '',
      'This document specifies the DoD Standard Internet Protocol.  This',
      'document is based on six earlier editions of the ARPA Internet',
      'Protocol Specification, and the present text draws heavily from them.',
    ];
    const out = await text([
      code(lines, 740),
      code(
        lines.map((l) => l.replace('791', '792')),
        740,
      ),
    ]);
    expect(out).not.toContain('```');
    expect(out).toContain('This document specifies the DoD Standard Internet Protocol.');
  });
});
