import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { FormatError } from '../../../src/formats/errors.js';
import { formatPdfText, pageText, readPdf, type TextPiece } from '../../../src/formats/pdf/index.js';
import { ROOT } from '../../support/cli.js';
import { makePdf, truncatePdf } from '../../support/make-pdf.js';

const HANDBOOK = makePdf({
  title: 'Support handbook',
  pages: [
    [
      'Refunds',
      'Agents may refund up to $200 without approval,',
      'as long as the order is recent.',
      '',
      'Team leads approve larger refunds.',
    ],
    ['Escalation (urgent cases)', 'Call the duty manager: café hours, €5 fee — always.'],
    ['Contacts', 'support@example.com'],
  ],
});

describe('readPdf', () => {
  it('reads each page in order: lines as lines, a blank line between paragraphs', async () => {
    const { title, pages } = await readPdf(HANDBOOK);
    expect(title).toBe('Support handbook');
    expect(pages).toEqual([
      'Refunds\nAgents may refund up to $200 without approval,\nas long as the order is recent.\n\nTeam leads approve larger refunds.',
      'Escalation (urgent cases)\nCall the duty manager: café hours, €5 fee — always.',
      'Contacts\nsupport@example.com',
    ]);
  });

  it('marks every page, an empty one too', async () => {
    const { pages } = await readPdf(makePdf({ pages: [['First page text.'], [], ['Third page text.']] }));
    expect(formatPdfText(pages)).toBe('[Page 1]\nFirst page text.\n\n[Page 2]\n\n[Page 3]\nThird page text.');
  });

  it('keeps a real title and drops the ones authoring tools write for every document', async () => {
    const titleOf = async (title: string) =>
      (await readPdf(makePdf({ title, pages: [['Body text.']] }))).title;
    expect(await titleOf('  Quarterly   report 2026 ')).toBe('Quarterly report 2026');
    expect(await titleOf('Microsoft Word - Pricing.docx')).toBeUndefined();
    expect(await titleOf('Untitled')).toBeUndefined();
    expect(await titleOf('Document1')).toBeUndefined();
    expect(await titleOf('scan_0042.pdf')).toBeUndefined();
    expect(await titleOf('---')).toBeUndefined();
    expect((await readPdf(makePdf({ pages: [['No metadata.']] }))).title).toBeUndefined();
    // XMP's dc:title comes first; a junk one falls back to the Info title.
    const both = { title: 'Info title', pages: [['Body text.']] };
    expect((await readPdf(makePdf({ ...both, xmpTitle: 'Préface & notes' }))).title).toBe('Préface & notes');
    expect((await readPdf(makePdf({ ...both, xmpTitle: 'Untitled' }))).title).toBe('Info title');
  });

  it('leaves the caller’s bytes as they were', async () => {
    const bytes = new Uint8Array(HANDBOOK);
    await readPdf(bytes);
    expect(bytes.byteLength).toBe(HANDBOOK.length);
    expect(Buffer.from(bytes).equals(HANDBOOK)).toBe(true);
  });

  it('says when a PDF is encrypted, damaged or incomplete, or has no text layer', async () => {
    const failure = (data: Uint8Array) =>
      readPdf(data).then(
        () => undefined,
        (error: unknown) => error,
      );
    const encrypted = await failure(makePdf({ pages: [['Secret.']], encrypted: true }));
    expect(encrypted).toBeInstanceOf(FormatError);
    expect((encrypted as Error).message).toMatch(/is encrypted \(password-protected\)/);
    for (const damaged of [
      truncatePdf(HANDBOOK),
      truncatePdf(HANDBOOK, 0.95),
      Buffer.from('%PDF-1.7\nthis is not a PDF body at all\n'),
      Buffer.alloc(0),
    ]) {
      const error = await failure(damaged);
      expect(error).toBeInstanceOf(FormatError);
      expect((error as Error).message).toMatch(/^The PDF is damaged or incomplete: /);
    }
    const scanned = await failure(makePdf({ pages: [['x'], ['y']], imageOnly: true }));
    expect(scanned).toBeInstanceOf(FormatError);
    expect((scanned as Error).message).toBe(
      'The PDF has no text layer (scanned or image-only); it would need OCR.',
    );
  });

  it('loads pdf.js only when a PDF is read', () => {
    const script = `
      const { readUrlTool } = await import('./dist/tools/read-url.js');
      readUrlTool({});
      const before = 'pdfjsLib' in globalThis;
      const { readPdf } = await import('./dist/formats/pdf/index.js');
      const { pages } = await readPdf(new Uint8Array(Buffer.from(process.argv[1], 'base64')));
      console.log(JSON.stringify([before, 'pdfjsLib' in globalThis, pages]));`;
    const r = spawnSync(
      process.execPath,
      ['--input-type=module', '-e', script, makePdf({ pages: [['x']] }).toString('base64')],
      { cwd: ROOT, encoding: 'utf8' },
    );
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual([false, true, ['x']]);
  });
});

/** A text item as pdf.js gives it: 10-point text at (x, y). */
const item = (str: string, x: number, y: number, hasEOL = false): TextPiece => ({
  str,
  dir: 'ltr',
  transform: [10, 0, 0, 10, x, y],
  width: str.length * 5,
  height: 10,
  hasEOL,
});

describe('pageText', () => {
  it('joins pieces of a line, breaks on end-of-line marks and baseline changes, collapses spaces', () => {
    const text = pageText([
      item('Net', 72, 700),
      item('price:', 92, 700), // a visible gap and no space item: a space is added
      item('  $40  ', 130, 700, true),
      item('', 0, 0, true),
      item('2', 72, 686), // the next line, no end-of-line mark needed
      item('nd', 77, 690), // a superscript stays on its line
      item(' line', 87, 686),
    ]);
    expect(text).toBe('Net price: $40\n2nd line');
  });

  it('starts a paragraph at a wide gap and at a jump back up the page (the next column)', () => {
    const text = pageText([
      item('Left column line one', 72, 700),
      item('left column line two', 72, 688),
      item('left column line three', 72, 676),
      item('After a gap', 72, 640),
      item('Right column top', 320, 700),
      item('right column next', 320, 688),
    ]);
    expect(text).toBe(
      'Left column line one\nleft column line two\nleft column line three\n\nAfter a gap\n\nRight column top\nright column next',
    );
  });
});

describe('makePdf (test helper)', () => {
  it('writes an exact cross-reference table, so pdf.js never has to rebuild one', () => {
    const pdf = HANDBOOK.toString('latin1');
    const startxref = Number(/startxref\n(\d+)\n%%EOF\n$/.exec(pdf)![1]);
    expect(pdf.slice(startxref, startxref + 5)).toBe('xref\n');
    const entries = [...pdf.slice(startxref).matchAll(/^(\d{10}) 00000 n $/gm)];
    expect(entries.length).toBeGreaterThan(5);
    for (const [i, entry] of entries.entries()) {
      const offset = Number(entry[1]);
      expect(pdf.slice(offset, offset + 12)).toMatch(new RegExp(`^${i + 1} 0 obj\n`));
    }
  });
});

describe('readPdf: words and reading order', () => {
  it('reads a table of contents drawn out of order by position: each entry with its own page', async () => {
    const entries = ['Introduction', 'Installing', 'Backups'];
    const pdf = makePdf({
      pages: [
        [
          // Entries with their leaders first, the page numbers last, as some producers draw them.
          ...entries.map((t, i) => ({ text: `${t} ${'. '.repeat(20)}`, y: 700 - i * 16 })),
          ...['3', '7', '12'].map((n, i) => ({ text: n, x: 400, y: 700 - i * 16 })),
        ],
      ],
    });
    expect((await readPdf(pdf)).pages[0]).toBe('Introduction … 3\nInstalling … 7\nBackups … 12');
  });

  it('reads a two-column page column by column, under a title that spans both', async () => {
    const left = [
      'The left column starts',
      'the article and goes on',
      'for a few lines of text',
      'until it ends here.',
    ];
    const right = [
      'The right column comes',
      'second in reading order',
      'although each of its rows',
      'shares a baseline.',
    ];
    const rows = left.flatMap((l, i) => [
      { text: l, x: 72, y: 680 - i * 14, size: 10 },
      { text: right[i]!, x: 320, y: 680 - i * 14, size: 10 },
    ]);
    const pdf = makePdf({
      pages: [[{ text: 'A title across the whole page width', y: 720, size: 10 }, ...rows]],
    });
    expect((await readPdf(pdf)).pages[0]).toBe(
      ['A title across the whole page width', '', ...left, '', ...right].join('\n'),
    );
  });

  it('joins a word hyphenated at a line end, keeps a real compound, merges letter-spaced titles', async () => {
    const pdf = makePdf({
      pages: [
        [
          { text: 'she snarfed', charSpacing: 6 },
          'The parts are re-',
          'usable, and reusable parts are well-',
          'known to every well maintained and known system.',
        ],
      ],
    });
    expect((await readPdf(pdf)).pages[0]).toBe(
      'she snarfed\nThe parts are reusable,\nand reusable parts are well-known\nto every well maintained and known system.',
    );
  });

  it('spells out ligatures and keeps a number in a table cell whole', async () => {
    const pdf = makePdf({
      pages: [
        [
          { text: 'The ﬁrst ﬂow', ligatures: true },
          // "0.8±0.2" drawn as two pieces with a hair of kerning between them.
          { text: 'Error 0.8±0', x: 72, y: 600 },
          { text: '.2', x: 72 + 61.4, y: 600 },
        ],
      ],
    });
    expect((await readPdf(pdf)).pages[0]).toBe('The first flow\nError 0.8±0.2');
  });

  it('takes headings from the outline, the title from the largest first-page line, never from a #', async () => {
    const pdf = makePdf({
      pages: [
        [{ text: 'Operations Guide', size: 24 }, 'Intro text.'],
        ['1.2 Backups', '# back up nightly', 'cp agent.db /backup/'],
      ],
      outline: [{ title: 'Guide', page: 1, children: [{ title: 'Backups', page: 2 }] }],
    });
    const { title, pages } = await readPdf(pdf);
    expect(title).toBe('Operations Guide');
    expect(pages[1]).toBe('## 1.2 Backups\n\n\\# back up nightly\ncp agent.db /backup/');
    // "Guide" is not a line of page 1: the bookmark's title is put where it opens.
    expect(pages[0]).toBe('# Guide\n\nOperations Guide\nIntro text.');
  });

  it('without an outline, takes headings from lines set larger than the body text and apart from it', async () => {
    const pdf = makePdf({
      pages: [
        [
          { text: 'Refunds', size: 18 },
          'Agents refund up to $200.',
          '',
          { text: 'Limits', size: 14 },
          'Leads approve more.',
          // As large, but set as a line of the paragraph: not a heading.
          { text: 'Exceptions', size: 14 },
          'None.',
        ],
      ],
    });
    const { title, pages } = await readPdf(pdf);
    expect(title).toBe('Refunds');
    expect(pages[0]).toBe(
      '# Refunds\n\nAgents refund up to $200.\n\n## Limits\n\nLeads approve more.\nExceptions\nNone.',
    );
  });
});
