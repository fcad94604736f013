import { describe, expect, it } from 'vitest';
import { FormatError } from '../../../src/formats/errors.js';
import { readPdf } from '../../../src/formats/pdf/index.js';
import { makePdf, type PdfRun } from '../../support/make-pdf.js';

// The layout of real documents, built small: running headers and footers, words hyphenated across
// lines and pages, columns under a full-width title, headings told by size and spacing, tables, and
// text layers that do not decode.

const SENTENCES = [
  'Engines compile the hot loops of a program',
  'into machine code while it runs, and keep',
  'the rest interpreted; the traces they record',
  'follow one path through each loop body.',
  'Guards check that later runs take the path',
  'again, and leave the trace when they do not.',
];

/** Body lines from y = 700 down, 14 points apart, size 10. */
const body = (lines: string[], x = 72, top = 700): PdfRun[] =>
  lines.map((text, i) => ({ text, x, y: top - i * 14, size: 10 }));

/** A page with a running header, a footer with its page number, and the given body lines. */
const pageWith = (n: number, lines: string[]): PdfRun[] => [
  { text: 'Tracing JIT Compilers — Technical Report', x: 72, y: 760, size: 8 },
  ...body(lines),
  { text: `Page ${n} of 5`, x: 280, y: 40, size: 8 },
  { text: String(n * 2 + 1), x: n % 2 ? 520 : 72, y: 24, size: 8 },
];

describe('readPdf: running headers and footers', () => {
  it('drops lines that repeat at the same place on most pages, page numbers whatever their digits', async () => {
    const pdf = makePdf({ pages: [1, 2, 3, 4, 5].map((n) => pageWith(n, SENTENCES.slice(n - 1))) });
    const { pages } = await readPdf(pdf);
    for (const [i, page] of pages.entries()) {
      expect(page).not.toMatch(/Technical Report|Page \d of 5|^\d+$/m);
      expect(page.split('\n')[0]).toBe(SENTENCES[i]);
    }
  });

  it('drops a chapter’s name over its own pages, and keeps the chapter’s heading in the body', async () => {
    const chapter = (name: string, n: number): PdfRun[] => [
      { text: name, x: 72, y: 760, size: 9 },
      ...body(SENTENCES.slice(n % 3, (n % 3) + 3)),
      { text: String(n), x: 300, y: 40, size: 9 },
    ];
    const pdf = makePdf({
      pages: [
        [{ text: 'Installing', x: 72, y: 720, size: 18 }, ...body(SENTENCES)],
        ...[2, 3, 4].map((n) => chapter('Installing', n)),
        [{ text: 'Backups', x: 72, y: 720, size: 18 }, ...body(SENTENCES)],
        ...[6, 7, 8].map((n) => chapter('Backups', n)),
      ],
    });
    const { pages } = await readPdf(pdf);
    expect(pages[0]).toMatch(/^# Installing\n/);
    expect(pages[4]).toMatch(/^# Backups\n/);
    for (const page of [...pages.slice(1, 4), ...pages.slice(5)]) {
      expect(page).not.toMatch(/Installing|Backups/);
      expect(page).not.toMatch(/^\d+$/m);
    }
  });

  it('drops a header row whose parts change with the chapter when one part runs on every page', async () => {
    const pdf = makePdf({
      pages: [1, 2, 3, 4, 5].map((n) => [
        {
          text: `Chapter ${n}. ${['Syntax', 'Types', 'Proofs', 'Tools', 'Index'][n - 1]}`,
          x: 72,
          y: 760,
          size: 8,
        },
        { text: 'Why3 Documentation, Release 1.5.1', x: 400, y: 760, size: 8 },
        ...body(SENTENCES.slice(n - 1)),
      ]),
    });
    for (const page of (await readPdf(pdf)).pages) expect(page).not.toMatch(/Chapter|Why3/);
  });

  it('keeps a line that repeats in the body too, and pages set evenly from top to bottom', async () => {
    const refrain = 'The same line opens and closes every page.';
    const pdf = makePdf({
      pages: [1, 2, 3, 4].map((n) => [
        ...body([refrain, ...SENTENCES.slice(n, n + 2), refrain]),
        { text: refrain, x: 72, y: 500, size: 10 },
      ]),
    });
    for (const page of (await readPdf(pdf)).pages) expect(page.split(refrain).length - 1).toBe(3);
  });

  it('joins a word broken across a page break without the footer or the page marker in its middle', async () => {
    const first = ['Each page of the report ends with a foot-', 'note about the Con-'];
    const second = ['gress and its budget, then the report', 'goes on about the footnote and Congress.'];
    const pdf = makePdf({
      pages: [
        pageWith(1, SENTENCES),
        pageWith(2, [...SENTENCES.slice(0, 4), ...first]),
        pageWith(3, second),
        pageWith(4, SENTENCES),
      ],
    });
    const { pages } = await readPdf(pdf);
    expect(pages[1]).toMatch(/ends with a footnote\nabout the Congress$/);
    expect(pages[2]).toMatch(/^and its budget, then the report\n/);
  });
});

describe('readPdf: hyphens at line ends', () => {
  it('joins typesetting hyphens and keeps a compound’s own, with the document’s words as the judge', async () => {
    const pdf = makePdf({
      pages: [
        body([
          'Modern processors improv-',
          'ing the state of the art make a well-',
          'known trick cheaper: the state-of-the-',
          'art loop keeps its word-by-word structure and',
          'the well-known and state-of-the-art forms occur again.',
          'Soft hyphens are always typesetting: infor\u00ad',
          'mation stays one word.',
        ]),
      ],
    });
    expect((await readPdf(pdf)).pages[0]).toBe(
      [
        'Modern processors improving',
        'the state of the art make a well-known',
        'trick cheaper: the state-of-the-art',
        'loop keeps its word-by-word structure and',
        'the well-known and state-of-the-art forms occur again.',
        'Soft hyphens are always typesetting: information',
        'stays one word.',
      ].join('\n'),
    );
  });
});

describe('readPdf: columns', () => {
  const left = SENTENCES.map((s) => s.slice(0, 40).trim());
  const right = [
    'The right column comes',
    'second in reading order',
    'although each of its rows',
    'shares a baseline',
    'with a row of the left',
    'column beside it.',
  ];

  it('reads a full-width title and abstract, then the left column, then the right', async () => {
    const abstract = Array.from(
      { length: 8 },
      (_, i) => `Abstract line ${i + 1} runs across the whole width of the page text block.`,
    );
    const pdf = makePdf({
      pages: [
        [
          { text: 'A Paper Title', x: 250, y: 760, size: 16 },
          ...body(abstract, 72, 730),
          ...body(left, 72, 600),
          ...body(right, 320, 600),
        ],
      ],
    });
    const text = (await readPdf(pdf)).pages[0]!;
    expect(text).toContain([...abstract.slice(-1), '', ...left, '', ...right].join('\n'));
  });

  it('reads a page of one column with an indented block as one column', async () => {
    const lines: PdfRun[] = [
      ...body(
        ['A paragraph of one column that runs across', 'the page and ends on a short line.', 'Then:'],
        72,
        700,
      ),
      ...body(
        [
          'an indented block of code or a quotation',
          'that starts right of the middle of the text',
          'and runs on for several lines until',
          'it ends here.',
        ],
        240,
        650,
      ),
      ...body(['The paragraph goes on after the block and', 'ends.'], 72, 580),
    ];
    const text = (await readPdf(makePdf({ pages: [lines] }))).pages[0]!;
    expect(text.replace(/\n+/g, ' ')).toBe(lines.map((l) => l.text).join(' '));
  });

  it('finds three columns as one column beside two', async () => {
    const third = [
      'A third column is read',
      'after the other two',
      'and never between',
      'their lines: columns',
      'inside columns are',
      'found the same way.',
    ];
    const pdf = makePdf({
      pages: [
        [
          ...body(
            left.map((l) => l.slice(0, 28)),
            40,
          ),
          ...body(right, 230),
          ...body(third, 420),
        ],
      ],
    });
    const text = (await readPdf(pdf)).pages[0]!;
    expect(text).toBe(
      [left.map((l) => l.slice(0, 28)).join('\n'), right.join('\n'), third.join('\n')].join('\n\n'),
    );
  });
});

describe('readPdf: headings and title without an outline', () => {
  it('takes headings only from larger lines set apart, never form fields, numbers or author lines', async () => {
    const pdf = makePdf({
      pages: [
        [
          { text: 'Trace Trees: Type Specialization', y: 740, size: 20 },
          { text: 'for Dynamic Languages', y: 716, size: 20 },
          { text: 'Andreas Gal*, Brendan Eich, Mike Shaver, David Anderson', y: 690, size: 13 },
          { text: 'University of California, Irvine', y: 674, size: 13 },
          ...body(SENTENCES.slice(0, 3), 72, 640),
          { text: '1 Introduction', y: 580, size: 14 },
          ...body(SENTENCES.slice(3), 72, 560),
          { text: 'PRENOM(S) : Jean', y: 480, size: 14 },
          { text: '2026 0412 7781', y: 450, size: 14 },
          { text: 'Andrew Kadatch1 and Bob Jenkins2', y: 435, size: 14 },
          { text: 'Results', y: 405, size: 14 },
          ...body(SENTENCES.slice(0, 2), 72, 385),
        ],
      ],
    });
    const { title, pages } = await readPdf(pdf);
    expect(title).toBe('Trace Trees: Type Specialization for Dynamic Languages');
    const headings = pages[0]!.split('\n').filter((l) => l.startsWith('#'));
    expect(headings).toEqual([
      '# Trace Trees: Type Specialization for Dynamic Languages',
      '## 1 Introduction',
      '## Results',
    ]);
  });
});

describe('readPdf: tables', () => {
  const row = (cells: string[], y: number): PdfRun[] =>
    cells.map((text, i) => ({ text, x: [72, 200, 330][i]!, y, size: 10 }));

  it('makes aligned rows of short cells a Markdown table, and drops rules set as text', async () => {
    const rows = [
      ['Animal', 'Description', 'Price ($)'],
      ['Gnat', 'per gram', '13.65'],
      ['', 'each', '0.01'],
      ['Gnu', 'stuffed', '92.50'],
      ['Armadillo', 'frozen', '8.99'],
    ];
    const pdf = makePdf({
      pages: [
        [
          ...body(['The price list:'], 72, 720),
          { text: '____________________________________', x: 72, y: 700, size: 10 },
          ...rows.flatMap((cells, i) => row(cells, 680 - i * 14)),
          { text: '------------------------------------', x: 72, y: 600, size: 10 },
        ],
      ],
    });
    expect((await readPdf(pdf)).pages[0]).toBe(
      [
        'The price list:',
        '',
        '| Animal | Description | Price ($) |',
        '| --- | --- | --- |',
        '| Gnat | per gram | 13.65 |',
        '|  | each | 0.01 |',
        '| Gnu | stuffed | 92.50 |',
        '| Armadillo | frozen | 8.99 |',
      ].join('\n'),
    );
  });

  it('keeps aligned columns apart with tabs where they are too few to be a table, and a lone gap a space', async () => {
    const pdf = makePdf({
      pages: [
        [
          ...row(['Name:', 'Ada Lovelace'], 700),
          ...row(['Born:', '1815'], 686),
          // One wide gap in a justified line: a word space.
          { text: 'spread', x: 72, y: 650, size: 10 },
          { text: 'out', x: 120, y: 650, size: 10 },
        ],
      ],
    });
    expect((await readPdf(pdf)).pages[0]).toBe('Name:\tAda Lovelace\nBorn:\t1815\n\nspread out');
  });
});

describe('readPdf: text layers that do not decode', () => {
  const junk = (n: number) =>
    body(Array(6).fill(`Glyph codes without a Unicode map, page ${n}`)).map((r) => ({
      ...r,
      undecodable: true,
    }));

  it('says which pages cannot be decoded and keeps the pages that can', async () => {
    const pdf = makePdf({ pages: [body(SENTENCES), junk(2), junk(3), junk(4), body(SENTENCES.slice(2))] });
    const { pages, notice } = await readPdf(pdf);
    expect(notice).toBe(
      'The text layer of pages 2–4 cannot be decoded (its fonts map glyphs to no characters); it would need OCR.',
    );
    expect(pages[0]).toBe(SENTENCES.join('\n'));
    expect(pages.slice(1, 4)).toEqual([`[${notice}]`, '', '']);
    expect(pages[4]).toBe(SENTENCES.slice(2).join('\n'));
  });

  it('fails, as for a scan, when no page can be decoded', async () => {
    const error = await readPdf(makePdf({ pages: [junk(1), junk(2)] })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FormatError);
    expect((error as Error).message).toBe(
      'The text layer of pages 1–2 cannot be decoded (its fonts map glyphs to no characters); it would need OCR.',
    );
  });
});
