import type { PDFDocumentProxy, TextItem } from 'pdfjs-dist/types/src/display/api.js';
import { FormatError } from '../errors.js';
import { type Line, pageLines } from './layout.js';
import { assetPaths, loadPdfJs } from './load.js';
import { cleanLine } from './words.js';

// Opening a PDF and reading one page's lines: the same steps in this thread and in a reading worker.

export const PDF_ENCRYPTED = 'The PDF is encrypted (password-protected), so its text cannot be read.';
export const PDF_NO_TEXT = 'The PDF has no text layer (scanned or image-only); it would need OCR.';
export const damaged = (why: string) => `The PDF is damaged or incomplete: ${why.replace(/\.$/, '')}.`;

export interface OpenPdf {
  doc: PDFDocumentProxy;
  close: () => Promise<void>;
}

/** Opens a PDF for its text, or throws a FormatError that says it is encrypted, damaged or incomplete. */
export async function openPdf(data: Uint8Array): Promise<OpenPdf> {
  if (data.length === 0) throw new FormatError(damaged('the file is empty (0 bytes)'));
  const { getDocument } = await loadPdfJs();
  const task = getDocument({
    // A copy: pdf.js refuses Buffers and may transfer (detach) the array it is given.
    data: new Uint8Array(data),
    ...assetPaths(),
    // Text only: no font loading, no eval of font programs, no canvas.
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    verbosity: 0,
  });
  const close = () => task.destroy();
  try {
    return { doc: await task.promise, close };
  } catch (error) {
    await close();
    const { name, message } = error as Error;
    if (name === 'PasswordException') throw new FormatError(PDF_ENCRYPTED);
    throw new FormatError(damaged(message || name));
  }
}

/** Page `n` (1-based) as lines in reading order, ligatures spelled out and leaders shortened. */
export async function readPageLines(doc: PDFDocumentProxy, n: number): Promise<Line[]> {
  const page = await doc.getPage(n);
  // Ligatures are spelled out by cleanLine, which is cheaper than pdf.js's normalisation of every item.
  const content = await page.getTextContent({ disableNormalization: true });
  page.cleanup();
  const lines = pageLines(content.items.filter((i): i is TextItem => 'str' in i));
  for (const line of lines) line.text = cleanLine(line.text);
  return lines;
}
