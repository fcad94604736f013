import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openPdf, readPageLines } from '../../../src/formats/pdf/document.js';
import { loadPdfJs } from '../../../src/formats/pdf/load.js';
import { EDITED_VERSION, editParser } from '../../../src/formats/pdf/parser-edits.js';
import { makePdf } from '../../support/make-pdf.js';

// We read PDFs with pdf.js changed in two ways: its halves talk over our port, which does not copy
// messages (src/formats/pdf/port.ts), and its parser has edits that make text cheaper to read
// (parser-edits.ts). Whatever the document, pdf.js as shipped must read the same lines: the text
// content's chunks (a long page sends several) and the operator list's (read for ruled tables and bold
// faces), positions to the last bit.

const fixture = (name: string) => readFileSync(new URL(`../../fixtures/pdf/${name}`, import.meta.url));

async function linesOf(data: Uint8Array, stock: boolean) {
  const { doc, close } = await openPdf(data, stock);
  try {
    const pages = [];
    for (let n = 1; n <= doc.numPages; n++) pages.push(await readPageLines(doc, n, { bold: true }));
    return pages;
  } finally {
    await close();
  }
}

async function linesBothWays(data: Uint8Array) {
  return { ours: await linesOf(data, false), stock: await linesOf(data, true) };
}

/**
 * A booktabs table of `rows` rows, its cells closer than a font size (so only its rules make it a table),
 * under a line of prose: more text items than pdf.js sends in one chunk.
 */
function ruledLongPage(rows: number) {
  const cells = [
    ['Station', 'Rain', 'Sky'],
    ...Array.from({ length: rows }, (_, i) => [
      `Station ${i}`,
      `${(i * 3.7).toFixed(2)}`,
      i % 2 ? 'dry' : 'wet',
    ]),
  ];
  const runs = [{ text: 'Measurements by station, one a row, under three rules.', x: 72, y: 770, size: 10 }];
  for (const [i, row] of cells.entries())
    for (const [c, text] of row.entries())
      runs.push({ text, x: [150, 192, 222][c]!, y: 740 - i * 11, size: 8 });
  const bottom = 740 - cells.length * 11 + 6;
  const rule = (y: number) => ({ x: 146, y, width: 100, height: 0.5 });
  return makePdf({ pages: [runs], rules: [[rule(750), rule(735), rule(bottom)]] });
}

describe('pdf.js as we run it', () => {
  it.each(['revtex-apssamp.pdf', 'elsarticle-5p.pdf', 'apa7-shortsample.pdf'])(
    'reads %s line for line as pdf.js as shipped does',
    async (name) => {
      const { ours, stock } = await linesBothWays(fixture(name));
      expect(ours.flat().length).toBeGreaterThan(50);
      expect(ours).toEqual(stock);
    },
  );

  it('reads a page of 60 ruled rows (several chunks of text and of operators) the same way', async () => {
    const { ours, stock } = await linesBothWays(ruledLongPage(60));
    expect(ours[0]!.some((l) => l.table)).toBe(true);
    expect(ours).toEqual(stock);
  });

  it('reads pages whose compressed content fails its checksum the same way (pdf.js’s own decoder takes over)', async () => {
    const pdf = Buffer.from(fixture('elsarticle-5p.pdf'));
    // Each page content stream's last four bytes (zlib's checksum) overwritten: zlib refuses the stream,
    // pdf.js's own decoder, which does not check it, reads it.
    let damaged = 0;
    for (let at = pdf.indexOf('endstream'); at > 0; at = pdf.indexOf('endstream', at + 1)) {
      const start = pdf.lastIndexOf('stream', at - 1);
      const dict = pdf.subarray(pdf.lastIndexOf('<<', start), start).toString('latin1');
      if (!dict.includes('/FlateDecode') || /\/Type|\/Length\d|\/Subtype|\/DecodeParms/.test(dict)) continue;
      const end = pdf[at - 2] === 0x0d ? at - 2 : at - 1;
      pdf.fill(0x55, end - 4, end);
      damaged++;
    }
    expect(damaged).toBeGreaterThan(3);
    const { ours, stock } = await linesBothWays(pdf);
    expect(ours.flat().length).toBeGreaterThan(300);
    expect(ours).toEqual(stock);
  });

  it('edits the parser of the pdf.js version package.json pins, and no other', async () => {
    const pinned = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'));
    expect(pinned.dependencies['pdfjs-dist']).toBe(EDITED_VERSION);
    expect((await loadPdfJs()).edited).toBe(true);
    const source = readFileSync(
      new URL('../../../node_modules/pdfjs-dist/legacy/build/pdf.worker.mjs', import.meta.url),
      'utf8',
    );
    expect(editParser(source, '5.7.0')).toBeUndefined();
    // A text an edit looks for, missing or found twice: the parser as shipped.
    const clone = 'const clone = Object.assign(Object.create(this), this);';
    expect(editParser(source.replace(clone, 'const clone = {};'), EDITED_VERSION)).toBeUndefined();
    const position = 'return Util.transform(textState.ctm, Util.transform(textState.textMatrix, tsm));';
    expect(editParser(`${source}\n      ${position}\n`, EDITED_VERSION)).toBeUndefined();
  });

  it('leaves nothing listening once a document is closed, and opens the next one afresh', async () => {
    const pdf = ruledLongPage(3);
    for (let i = 0; i < 3; i++) {
      const { doc, close } = await openPdf(pdf);
      expect((await readPageLines(doc, 1)).length).toBeGreaterThan(1);
      await close();
    }
  });
});
