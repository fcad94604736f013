import type { PDFDocumentProxy, TextItem } from 'pdfjs-dist/types/src/display/api.js';
import { FormatError } from '../errors.js';
import { LONGEST_BOLD_HEADING, PARAGRAPH_LINE } from './headings.js';
import { type Line, piecesLines, piecesOf } from './layout.js';
import { assetPaths, loadPdfJs, loadStockParser } from './load.js';
import { DirectPort } from './port.js';
import { mayHaveTable, ruledPageLines } from './ruled.js';
import { rulesOf } from './rules.js';
import { cleanLine } from './words.js';

// Opening a PDF and reading one page's lines: the same steps in this thread and in a reading worker.

export const PDF_ENCRYPTED = 'The PDF is encrypted (password-protected), so its text cannot be read.';
export const PDF_NO_TEXT = 'The PDF has no text layer (scanned or image-only); it would need OCR.';
export const damaged = (why: string) => `The PDF is damaged or incomplete: ${why.replace(/\.$/, '')}.`;

export interface OpenPdf {
  doc: PDFDocumentProxy;
  close: () => Promise<void>;
}

/**
 * Opens a PDF for its text, or throws a FormatError that says it is encrypted, damaged or incomplete.
 * `stock` reads it with pdf.js as shipped: its own channel between its halves, which copies every
 * message, and its parser without our edits. Slower; kept to check ours against (port.ts, parser-edits.ts).
 */
export async function openPdf(data: Uint8Array, stock = false): Promise<OpenPdf> {
  if (data.length === 0) throw new FormatError(damaged('the file is empty (0 bytes)'));
  const { getDocument, PDFWorker, parser } = await loadPdfJs();
  let worker: InstanceType<typeof PDFWorker> | undefined;
  if (stock) {
    // Where pdf.js's own channel looks for a parser in this thread.
    (globalThis as { pdfjsWorker?: unknown }).pdfjsWorker = await loadStockParser();
  } else {
    const port = new DirectPort();
    parser.WorkerMessageHandler.initializeFromPort(port);
    // Its declared types leave out `port`, which the constructor takes (a Worker-like object).
    worker = new PDFWorker({ port, verbosity: 0 } as unknown as ConstructorParameters<typeof PDFWorker>[0]);
  }
  const task = getDocument({
    worker,
    // A copy: pdf.js refuses Buffers and may transfer (detach) the array it is given.
    data: new Uint8Array(data),
    ...assetPaths(),
    // Text only: no font loading, no eval of font programs, no canvas.
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    // The operator list is asked for rules and font names only: images are left out of it undecoded.
    maxImageSize: 1,
    verbosity: 0,
  });
  // A worker given to getDocument is the caller's to end.
  const close = () => task.destroy().finally(() => worker?.destroy());
  try {
    return { doc: await task.promise, close };
  } catch (error) {
    await close();
    const { name, message } = error as Error;
    if (name === 'PasswordException') throw new FormatError(PDF_ENCRYPTED);
    throw new FormatError(damaged(message || name));
  }
}

// A face's name that says bold: "Times-Bold", "NimbusRomNo9L-Medi" (URW's bold), TeX's CMBX10 and
// LMRoman10-Bold, "Arial,Bold", "SemiBold", "Black", "Heavy".
const BOLD_FACE =
  /bold|black|heavy|demi|medi|[-,+](?:bd|b)$|^(?:[A-Z]{6}\+)?(?:cmbx|cmb\d|sfbx|lmbx|ec?bx|t1bx)/i;

interface FontFace {
  name?: string;
  bold?: boolean;
}

/** Whether the line could be a bold heading: short, starting a paragraph, a line of text under it. */
const mayBeBoldHeading = (lines: Line[], i: number) =>
  lines[i]!.font !== undefined &&
  lines[i]!.text.length <= LONGEST_BOLD_HEADING &&
  (i === 0 || lines[i]!.paragraph) &&
  (lines[i + 1]?.text.length ?? 0) >= PARAGRAPH_LINE;

export interface ReadPageOptions {
  /** Whether bold lines are asked for (headings where the document has no outline). */
  bold?: boolean;
}

/**
 * Page `n` (1-based) as lines in reading order, ligatures spelled out and leaders shortened. Tables
 * drawn with rules become one line each with their rows. The page's operator list (where rules and
 * font names are) is read only for a page that may have such a table (close, aligned cells) or a bold
 * heading in a font not seen yet: it costs over half as much again as the text.
 */
export async function readPageLines(
  doc: PDFDocumentProxy,
  n: number,
  o: ReadPageOptions = {},
): Promise<Line[]> {
  const page = await doc.getPage(n);
  try {
    // Ligatures are spelled out by cleanLine, which is cheaper than pdf.js's normalisation of every item.
    const content = await page.getTextContent({ disableNormalization: true });
    const pieces = piecesOf(content.items.filter((i): i is TextItem => 'str' in i));
    // pdf.js marks a font monospaced from its flags or its widths: code and terminal output are set so.
    for (const p of pieces) if (p.font && content.styles[p.font]?.fontFamily === 'monospace') p.mono = true;
    const rows = mayHaveTable(pieces);
    let lines = piecesLines(pieces);
    const fonts = page.commonObjs;
    const unknownFont = o.bold && lines.some((l, i) => mayBeBoldHeading(lines, i) && !fonts.has(l.font!));
    if (rows || unknownFont) {
      const { OPS } = await loadPdfJs();
      // AnnotationMode.DISABLE: form fields' and links' appearances draw no table rules.
      const ops = await page.getOperatorList({ annotationMode: 0 });
      const rules = rows ? rulesOf(ops.fnArray, ops.argsArray, OPS) : [];
      if (rules.length) lines = ruledPageLines(pieces, rules);
    }
    if (o.bold)
      for (const [i, line] of lines.entries()) {
        if (!mayBeBoldHeading(lines, i) || !fonts.has(line.font!)) continue;
        const face = fonts.get(line.font!) as FontFace;
        if (face.bold || BOLD_FACE.test(face.name ?? '')) line.bold = true;
      }
    for (const line of lines) {
      line.text = cleanLine(line.text);
      if (line.table) line.table = line.table.map((row) => row.map(cleanLine));
      delete line.font;
    }
    return lines;
  } finally {
    page.cleanup();
  }
}
