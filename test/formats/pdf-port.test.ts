import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openPdf, readPageLines } from '../../src/formats/pdf/document.js';
import { makePdf } from '../support/make-pdf.js';

// pdf.js's halves talk over our port, which does not copy messages as pdf.js's own channel does (see
// src/formats/pdf/port.ts). Whatever the document, both must read the same lines: the text content's
// chunks (a long page sends several) and the operator list's (read for ruled tables and bold faces).

const fixture = (name: string) => readFileSync(new URL(`../fixtures/pdf/${name}`, import.meta.url));

async function linesBothWays(data: Uint8Array) {
  const read = async (copying: boolean) => {
    const { doc, close } = await openPdf(data, copying);
    try {
      const pages = [];
      for (let n = 1; n <= doc.numPages; n++) pages.push(await readPageLines(doc, n, { bold: true }));
      return pages;
    } finally {
      await close();
    }
  };
  return { direct: await read(false), copied: await read(true) };
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

describe('the channel between pdf.js halves', () => {
  it.each(['revtex-apssamp.pdf', 'elsarticle-5p.pdf', 'apa7-shortsample.pdf'])(
    'reads %s line for line as pdf.js’s copying channel does',
    async (name) => {
      const { direct, copied } = await linesBothWays(fixture(name));
      expect(direct.flat().length).toBeGreaterThan(50);
      expect(direct).toEqual(copied);
    },
  );

  it('reads a page of 60 ruled rows (several chunks of text and of operators) the same way', async () => {
    const { direct, copied } = await linesBothWays(ruledLongPage(60));
    expect(direct[0]!.some((l) => l.table)).toBe(true);
    expect(direct).toEqual(copied);
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
