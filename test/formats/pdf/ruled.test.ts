import { describe, expect, it } from 'vitest';
import { readPdf } from '../../../src/formats/pdf/index.js';
import { loadPdfJs } from '../../../src/formats/pdf/load.js';
import { rulesOf } from '../../../src/formats/pdf/rules.js';
import { makePdf, type PdfRule, type PdfRun } from '../../support/make-pdf.js';

// Tables drawn with rules: booktabs' three rules (papers), a grid of stroked borders (word
// processors), and what rules also frame without being a table (a boxed note, a numbered listing).

const PROSE = [
  'The counts below were taken in the field over three summers, by hand, and checked twice.',
  'Each figure is the mean of the three counts; the units differ from one insect to the next.',
];

/** Rows of cells at size 10, 14 points apart from `top` down, each column's left edge given. */
const cells = (rows: string[][], xs: number[], top: number): PdfRun[] =>
  rows.flatMap((row, i) => row.map((text, c) => ({ text, x: xs[c]!, y: top - i * 14, size: 10 })));

const rule = (x: number, y: number, width: number, height = 0.5): PdfRule => ({ x, y, width, height });

const INSECTS = [
  ['Insect', 'Unit', 'Count'],
  ['Gnat', 'per gram', '13.65'],
  ['Gnu', 'each', '0.01'],
  ['Emu', 'stuffed', '33.33'],
];

/** The insects set with gaps of 8 points (under a font size) between cells: too narrow for alignment alone. */
function booktabs(withRules: boolean) {
  // Widths of Helvetica 10: "Insect" 26.7, "per gram" 40, "Count" 28.3: columns at 150, 186, 234.
  const page: PdfRun[] = [
    { text: PROSE[0]!, x: 72, y: 700, size: 10 },
    { text: PROSE[1]!, x: 72, y: 686, size: 10 },
    ...cells(INSECTS, [150, 186, 234], 640),
    { text: 'Table 1: Insects by the gram and by the head.', x: 150, y: 570, size: 10 },
  ];
  const rules = withRules ? [rule(146, 653, 126, 0.8), rule(146, 636, 126), rule(146, 594, 126, 0.8)] : [];
  return makePdf({ pages: [page], rules: [rules] });
}

describe('readPdf: tables drawn with rules', () => {
  it('makes a booktabs table (top, middle and bottom rules) a Markdown table, in its place', async () => {
    const { pages } = await readPdf(booktabs(true));
    expect(pages[0]).toBe(
      [
        `${PROSE[0]}\n${PROSE[1]}`,
        '| Insect | Unit | Count |\n| --- | --- | --- |\n| Gnat | per gram | 13.65 |\n| Gnu | each | 0.01 |\n| Emu | stuffed | 33.33 |',
        'Table 1: Insects by the gram and by the head.',
      ].join('\n\n'),
    );
  });

  it('leaves the same rows without rules as lines: their gaps alone are too narrow to say', async () => {
    const { pages } = await readPdf(booktabs(false));
    expect(pages[0]).not.toContain('|');
    // Cells closer than a font size run together, as they did with rules before.
    expect(pages[0]).toMatch(/^Insect Unit\tCount$/m);
  });

  it('reads a grid of stroked borders, a cell wrapped over two lines being one cell', async () => {
    // Cells 8 to 16 points apart, some under a font size, as a grid's padding sets them.
    const rows: PdfRun[] = [
      ...cells([['Name', 'Meaning']], [80, 116], 700),
      ...cells([['expiry', 'Seconds before a request']], [80, 116], 680),
      { text: 'is given up', x: 116, y: 668, size: 10 },
      ...cells([['retries', 'Attempts after the first']], [80, 116], 648),
      ...cells([['proxy', 'Where requests go']], [80, 116], 628),
      ...cells([['user', 'Who is asking']], [80, 116], 608),
    ];
    const stroke = (x: number, y: number, width: number, height: number): PdfRule => ({
      x,
      y,
      width,
      height,
      stroke: true,
    });
    const borders = [
      ...[712, 692, 660, 640, 620, 600].map((y) => stroke(76, y, 254, 0)),
      ...[76, 112, 330].map((x) => stroke(x, 600, 0, 112)),
    ];
    const { pages } = await readPdf(makePdf({ pages: [rows], rules: [borders] }));
    expect(pages[0]).toBe(
      '| Name | Meaning |\n| --- | --- |\n| expiry | Seconds before a request is given up |\n' +
        '| retries | Attempts after the first |\n| proxy | Where requests go |\n| user | Who is asking |',
    );
  });

  it('keeps a boxed paragraph, and a framed listing with numbers in its margin, as text', async () => {
    const note: PdfRun[] = PROSE.map((text, i) => ({ text, x: 80, y: 700 - i * 14, size: 10 }));
    const listing: PdfRun[] = ['for (i = 0; i < n; i++)', '  total += x[i];', 'return total;'].flatMap(
      (text, i) => [
        { text: String(i + 1), x: 60, y: 600 - i * 14, size: 10 },
        { text, x: 80, y: 600 - i * 14, size: 10 },
        { text: `// step ${i + 1}`, x: 200, y: 600 - i * 14, size: 10 },
      ],
    );
    const pdf = makePdf({
      pages: [note, listing],
      rules: [
        [rule(76, 712, 470), rule(76, 680, 470)],
        [rule(76, 612, 250), rule(76, 568, 250)],
      ],
    });
    const { pages } = await readPdf(pdf);
    expect(pages[0]).toBe(`${PROSE[0]}\n${PROSE[1]}`);
    expect(pages[1]).not.toContain('|');
    expect(pages[1]).toMatch(/^1\tfor \(i = 0; i < n; i\+\+\)\t\/\/ step 1$/m);
  });
});

describe('rulesOf', () => {
  it('finds thin filled boxes and straight stroked segments, through transforms, and nothing else', async () => {
    const { OPS } = await loadPdfJs();
    const path = (paint: number, buffer: number[], minMax: number[] | null) => [
      paint,
      [buffer.length ? Float32Array.from(buffer) : null],
      minMax,
    ];
    // moveTo 0, lineTo 1, curveTo 2, closePath 4, as pdf.js's DrawOPS.
    const ops: [number, unknown][] = [
      [OPS.constructPath, path(OPS.fill, [0, 10, 100, 1, 200, 100, 4], [10, 100, 200, 100.8])], // a rule
      [OPS.constructPath, path(OPS.fill, [0, 10, 100, 4], [10, 100, 200, 160])], // a box
      [OPS.constructPath, path(OPS.endPath, [0, 0, 0, 4], [0, 0, 612, 792])], // a clip
      [OPS.save, null],
      [OPS.transform, [1, 0, 0, 1, 50, 20]],
      [OPS.setLineWidth, [0.4]],
      [OPS.constructPath, path(OPS.stroke, [0, 0, 0, 1, 0, 40, 1, 30, 40], [0, 0, 30, 40])], // an L
      [OPS.constructPath, path(OPS.stroke, [0, 0, 0, 2, 5, 5, 10, 10, 20, 0], [0, 0, 20, 10])], // a curve
      [OPS.setLineWidth, [6]],
      [OPS.constructPath, path(OPS.stroke, [0, 0, 300, 1, 100, 300], [0, 300, 100, 300])], // a bar
      [OPS.restore, null],
      [OPS.constructPath, path(OPS.stroke, [0, 10, 10, 1, 10, 60], [10, 10, 10, 60])], // after restore
    ];
    const rules = rulesOf(
      ops.map(([fn]) => fn),
      ops.map(([, args]) => args),
      OPS,
    );
    const round = (r: (typeof rules)[number]) =>
      Object.fromEntries(Object.entries(r).map(([k, v]) => [k, Math.round(v * 100) / 100]));
    expect(rules.map(round)).toEqual([
      { x0: 10, x1: 200, y0: 100.4, y1: 100.4 },
      { x0: 50, x1: 50, y0: 20, y1: 60 },
      { x0: 50, x1: 80, y0: 60, y1: 60 },
      { x0: 10, x1: 10, y0: 10, y1: 60 },
    ]);
  });
});
