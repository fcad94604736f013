import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readPdf } from '../../../src/formats/pdf/index.js';
import { makePdf, type PdfRun } from '../../support/make-pdf.js';

// Headings set in bold at the body's size, in a PDF without an outline: only a short bold phrase with
// space above it and ordinary paragraph text under it. Form fields, digit runs, author lines, a bold
// line inside a paragraph or over a short value stay text, whatever the words.

const SENTENCES = [
  'The survey counted every bird on the island',
  'twice a year, in spring and in late autumn,',
  'from the same twelve points along the coast;',
  'each count took a morning and two observers.',
  'Numbers fell in the first years of the study',
  'and rose again once the rats were removed.',
  'Gulls and terns nest on the northern cliffs,',
  'where the counts are hardest to make well.',
];

/** Body lines at size 10 from `top` down, 14 points apart. */
const body = (lines: string[], top: number): PdfRun[] =>
  lines.map((text, i) => ({ text, x: 72, y: top - i * 14, size: 10 }));

/** Four sentences from the n-th on: each page's lines differ, so none repeats as a running header would. */
const sentences = (n: number) => [0, 1, 2, 3].map((i) => SENTENCES[(n + i) % SENTENCES.length]!);

/**
 * Page `n`: a paragraph, then `variant` with the given space above it, then a paragraph under it.
 */
function page(variant: PdfRun[], gapAbove: number, n = 0): PdfRun[] {
  const top = 700 - 3 * 14 - gapAbove;
  const placed = variant.map((run, i) => ({ ...run, x: 72, y: top - i * 14, size: 10 }));
  return [
    ...body(sentences(n).slice(0, 3), 700),
    ...placed,
    ...body(sentences(n + 3), top - variant.length * 14 - 4),
  ];
}

/** The first page: bold names under a title before any body text, which are not headings. */
const FIRST: PdfRun[] = [
  { text: 'Trace Trees for Dynamic Languages', x: 72, y: 740, size: 10, bold: true },
  { text: 'Ann Lee and Bob Ray', x: 72, y: 712, size: 10, bold: true },
  { text: 'Department of Computer Science, University of Nowhere', x: 72, y: 698, size: 10 },
  ...body(['A paragraph of body text that is long enough to show that the body has begun now.'], 660),
];

const word = fc.stringMatching(/^[a-z]{3,9}$/);
const phrase = fc
  .tuple(fc.array(word, { minLength: 1, maxLength: 6 }), fc.option(fc.constantFrom('1', '2.3', 'A', '4.1.2')))
  .map(([words, number]) => {
    const text = words.join(' ');
    return `${number ? `${number} ` : ''}${text[0]!.toUpperCase()}${text.slice(1)}`;
  });

/** Bold lines that must stay text, each with the space above it it would have as a heading. */
const notHeading = fc.oneof(
  // Form fields.
  word.map((w) => [{ text: `${w.toUpperCase()} :`, bold: true }]),
  fc.tuple(word, word).map(([a, b]) => [{ text: `${a.toUpperCase()}(S) : ${b}`, bold: true }]),
  // Digit runs, with or without a word.
  fc
    .array(fc.integer({ min: 10, max: 99999 }), { minLength: 2, maxLength: 4 })
    .map((ns) => [{ text: ns.join(' '), bold: true }]),
  fc
    .tuple(word, fc.integer({ min: 1000, max: 9999 }), fc.integer({ min: 10, max: 99 }))
    .map(([w, a, b]) => [{ text: `${w[0]!.toUpperCase()}${w.slice(1)} ${a} ${b}`, bold: true }]),
  // Author lines.
  fc.tuple(word, word, word, word).map(([a, b, c, d]) => [{ text: `${a} ${b}1 and ${c} ${d}2`, bold: true }]),
  fc.tuple(word, word, word).map(([a, b, c]) => [{ text: `${a}*, ${b}, ${c}, ${a}${b}`, bold: true }]),
  // A label over a short value (a form), and a bold sentence.
  fc.tuple(phrase, word).map(([label, value]) => [{ text: label, bold: true }, { text: value }]),
  phrase.map((text) => [{ text: `${text} is done.`, bold: true }]),
  // A short line that is not bold.
  phrase.map((text) => [{ text }]),
);

describe('readPdf: bold headings without an outline', () => {
  it('makes a short bold phrase with space above and a paragraph under it a heading', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(phrase, { minLength: 1, maxLength: 3 }), async (titles) => {
        const pdf = makePdf({
          pages: [FIRST, ...titles.map((text, n) => page([{ text, bold: true }], 28, n))],
        });
        const { pages } = await readPdf(pdf);
        expect(pages[0]).not.toContain('#');
        for (const [i, text] of titles.entries()) expect(pages[i + 1]).toContain(`\n\n## ${text}\n\n`);
      }),
      { numRuns: 8 },
    );
  });

  it('never takes form fields, digit runs, author lines, a label over a value or a sentence for one', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(notHeading, { minLength: 1, maxLength: 4 }), async (variants) => {
        const pdf = makePdf({ pages: [FIRST, ...variants.map((v, n) => page(v as PdfRun[], 28, n))] });
        for (const text of (await readPdf(pdf)).pages) expect(text).not.toMatch(/^#/m);
      }),
      { numRuns: 12 },
    );
  });

  it('never takes a bold line inside a paragraph, or any bold line where the PDF has an outline', async () => {
    await fc.assert(
      fc.asyncProperty(phrase, async (text) => {
        const inside = makePdf({ pages: [FIRST, page([{ text, bold: true }], 0)] });
        expect((await readPdf(inside)).pages[1]).not.toMatch(/^#/m);
        const outlined = makePdf({
          pages: [FIRST, page([{ text, bold: true }], 28)],
          outline: [{ title: 'Trace Trees for Dynamic Languages', page: 1 }],
        });
        expect((await readPdf(outlined)).pages[1]).not.toMatch(/^#/m);
      }),
      { numRuns: 6 },
    );
  });
});
