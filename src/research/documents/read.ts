import { readFileSync, statSync } from 'node:fs';
import { basename, extname } from 'node:path';
import { ConfigError } from '../../errors.js';
import { FormatError } from '../../formats/errors.js';
import { firstHeading } from './passages.js';

// Reading one content-folder file as text (Markdown where the format has structure) and its title.
// Everything that makes a file unusable is a FormatError whose message says why, in a few words.

/** The formats the content folder indexes, in the order that decides which keeps a shared slug. */
export const EXTENSIONS = ['.md', '.markdown', '.txt', '.html', '.htm', '.docx', '.pdf'] as const;

/**
 * Larger files are skipped unless the limit is raised (AGENT_MAX_DOCUMENT_MB, `agent read --max-size`):
 * a document this size is usually an archive or an export, and a PDF's reading time grows with it.
 */
export const MAX_FILE_BYTES = 50 * 2 ** 20;
export const MAX_FILE_MIB = MAX_FILE_BYTES / 2 ** 20;

/** A size limit in MiB as given (a number above 0, fractions allowed), or undefined when it is not one. */
export function parseMiB(raw: string): number | undefined {
  const mib = /^\d+(?:\.\d+)?$/.test(raw.trim()) ? Number(raw) : Number.NaN;
  return mib > 0 && Number.isFinite(mib) ? mib : undefined;
}

/**
 * The largest document read, in bytes: AGENT_MAX_DOCUMENT_MB (in MiB, 2^20 bytes) when set, else 50 MiB.
 * A value that is not a size is a ConfigError, so a typo does not silently mean the default.
 */
export function maxDocumentBytes(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.AGENT_MAX_DOCUMENT_MB?.trim();
  if (!raw) return MAX_FILE_BYTES;
  const mib = parseMiB(raw);
  if (mib === undefined)
    throw new ConfigError(
      `AGENT_MAX_DOCUMENT_MB=${raw} is not a size: expected MiB (2^20 bytes), a number above 0, like 200.`,
    );
  return Math.floor(mib * 2 ** 20);
}

const mib = (bytes: number) => `${Number((bytes / 2 ** 20).toFixed(1))} MiB`;

/** Invalid UTF-8 above this share of the characters is not a text file saved in another encoding. */
const MAX_INVALID_SHARE = 0.001;

export function isDocumentFile(name: string): boolean {
  return (EXTENSIONS as readonly string[]).includes(extname(name).toLowerCase());
}

export type DocumentKind = 'pdf' | 'docx' | 'html' | 'markdown' | 'text';

export interface DocumentText {
  /**
   * PDF: its metadata title, else its largest first-page line or a heading there. DOCX: its document
   * properties' title, else its Title-style paragraph or first heading. HTML: its one <h1>, else its
   * <title>, else its first heading. Text: the first heading or line. DOCX and HTML without any of
   * those: their first line of text.
   */
  title?: string;
  text: string;
  kind: DocumentKind;
  /** A PDF's page count. */
  pages?: number;
  /** What the reader could not read (a PDF's pages whose text layer cannot be decoded), in one line. */
  note?: string;
}

/**
 * Reads a document file of a supported format. Throws FormatError with the reason it cannot be used.
 * `size`: the file's size, when the caller has just read it from the file system. `maxChars`: a PDF is
 * read only until its text is this long. `maxBytes`: larger files are refused (default: maxDocumentBytes).
 */
export async function readDocumentFile(
  path: string,
  options: { size?: number; signal?: AbortSignal; maxChars?: number; maxBytes?: number } = {},
): Promise<DocumentText> {
  let { size } = options;
  const maxBytes = options.maxBytes ?? maxDocumentBytes();
  let data: Buffer;
  try {
    // Synchronous on purpose: for thousands of small files the thread pool's round trips cost ten
    // times the reading itself. Only parsing (PDF, DOCX) is asynchronous.
    size ??= statSync(path).size;
    if (size > maxBytes)
      throw new FormatError(
        `larger than the ${mib(maxBytes)} limit (${mib(size)}); raise it with AGENT_MAX_DOCUMENT_MB (MiB) or agent read --max-size`,
      );
    data = readFileSync(path);
  } catch (error) {
    throw error instanceof FormatError ? error : new FormatError(`cannot be read: ${fsReason(error)}`);
  }
  if (data.length === 0) throw new FormatError('empty file (0 bytes)');

  const ext = extname(path).toLowerCase();
  let read: DocumentText;
  if (ext === '.pdf') {
    // Each reader loads with the first file of its kind: a run over an indexed folder needs none.
    // Its headings come from the PDF's outline or type sizes: `#` in its text is escaped, never one.
    const { formatPdfText, readPdf } = await import('../../formats/pdf/index.js');
    const pdf = await readPdf(data, { signal: options.signal, maxChars: options.maxChars });
    read = {
      title: pdf.title,
      text: formatPdfText(pdf.pages),
      kind: 'pdf',
      pages: pdf.pageCount,
      ...(pdf.notice ? { note: pdf.notice } : {}),
    };
  } else if (ext === '.docx') {
    const { readDocx } = await import('../../formats/docx.js');
    const docx = await readDocx(data);
    read = { title: docx.title ?? firstLine(docx.text), text: docx.text, kind: 'docx' };
  } else if (ext === '.html' || ext === '.htm') {
    // The user's own file: read whole, never cut down to a guessed main content as a web page is.
    const { readHtmlDocument } = await import('../../formats/html/html-to-text.js');
    const html = readHtmlDocument(decodeText(data));
    read = { title: html.title || firstLine(html.text), text: html.text, kind: 'html' };
  } else {
    const text = decodeText(data).replace(/\r\n?/g, '\n');
    read = { title: titleOf(text), text, kind: ext === '.txt' ? 'text' : 'markdown' };
  }
  if (!/[\p{L}\p{N}]/u.test(read.text)) throw new FormatError('no text in it');
  // Windows line ends: one kind of line break, so headings and passages split the same everywhere.
  return { ...read, text: read.text.replace(/\r\n?/g, '\n') };
}

/**
 * The first Markdown heading, else the `title:` of YAML front matter, else the first non-empty line
 * after any front matter; undefined for a blank text.
 */
export function titleOf(text: string): string | undefined {
  const front = /^---\n([\s\S]*?)\n(?:---|\.\.\.)(?:\n|$)/.exec(text);
  const metadata = front && /^title:[ \t]*(["']?)(.+?)\1[ \t]*$/m.exec(front[1]!)?.[2];
  const line = text
    .slice(front?.[0].length ?? 0)
    .split('\n')
    .find((l) => l.trim())
    ?.trim();
  return (firstHeading(text) ?? metadata ?? line)?.slice(0, 200);
}

/**
 * The first line of converted Markdown as plain words, for a document without a title or heading: a
 * bold pseudo-heading or the opening words say more than the file's name. Tables, code and notes are
 * skipped; undefined when nothing is left.
 */
export function firstLine(markdown: string): string | undefined {
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    if (fenced || /^\s*(\||\[\^|```)/.test(line)) continue;
    const words = line
      .replace(/^\s*(?:#{1,6} |[-*] |\d+\. |>\s?)+/, '')
      .replace(/\[([^\]]*)\]\((?:[^()\s]|\([^()\s]*\))*\)/g, '$1')
      .replace(/\*\*|[*`]|\\(?=[[\]#*])/g, '')
      .replace(/\s+/g, ' ')
      .trim();
    if (/[\p{L}\p{N}]/u.test(words)) return words.slice(0, 200);
  }
  return undefined;
}

/** The title of a file that has none of its own: its name. */
export const fileTitle = (path: string): string => basename(path);

/**
 * Bytes of a text format as a string: UTF-8 (BOM dropped) or UTF-16 with a BOM. A file with NUL bytes is
 * binary; one that is not UTF-8 but has no control characters is legacy 8-bit text (Windows-1252).
 */
export function decodeText(data: Uint8Array): string {
  if (data[0] === 0xff && data[1] === 0xfe) return new TextDecoder('utf-16le').decode(data.subarray(2));
  if (data[0] === 0xfe && data[1] === 0xff) return new TextDecoder('utf-16be').decode(data.subarray(2));
  if (data.includes(0)) throw new FormatError('binary content, not text (it has NUL bytes)');
  const text = new TextDecoder('utf-8').decode(data);
  let invalid = 0;
  for (let i = text.indexOf('\ufffd'); i >= 0; i = text.indexOf('\ufffd', i + 1)) invalid++;
  if (invalid <= text.length * MAX_INVALID_SHARE) return text;
  if (data.some((b) => b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d && b !== 0x0c && b !== 0x1b))
    throw new FormatError('binary content, not text (control bytes and invalid UTF-8)');
  return new TextDecoder('windows-1252').decode(data);
}

function fsReason(error: unknown): string {
  const code = (error as { code?: string }).code;
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'ENOENT') return 'it disappeared while being read';
  if (code === 'EISDIR') return 'it is a folder';
  return (error as Error).message ?? String(error);
}

/** A FormatError's message as a reason: "The PDF is encrypted." → "the PDF is encrypted". */
export function reasonOf(error: unknown): string {
  const message = (error instanceof Error ? error.message : String(error)).trim().replace(/\.$/, '');
  return /^[A-Z][a-z]/.test(message) ? message[0]!.toLowerCase() + message.slice(1) : message;
}
