import { FormatError } from '../formats/errors.js';
import { WebError } from './errors.js';
import { type Fetched, type ResponseStart, type SafeFetchOptions, safeFetch } from './net/safe-fetch.js';
import { budgetWords } from './pdf-budget.js';

// A page by URL as text: fetched through the SSRF-safe client (net/), read as HTML, PDF, plain text or
// JSON, through the page cache when one is given. The chat's read_url tool (src/tools/read-url.ts),
// `agent read` and research's web sources all read pages here.

/** A PDF cut short cannot be parsed, so PDFs are read whole, up to this size, or refused. */
export const PDF_MAX_BYTES = 10 * 1024 * 1024;

export interface Page {
  url: string;
  title: string;
  text: string;
  kind: 'pdf' | 'html' | 'text';
  /** A PDF's page count. */
  pages?: number;
  /** Said before the text, when a long PDF was read only in part: "Read 12 of 2,962 pages: …". */
  note?: string;
  /** Served from the page cache: when it was fetched, or last confirmed by its server (ISO 8601). */
  fetchedAt?: string;
}

/** How much of a PDF to read: a caller that shows only so much text (read_url) stops there. */
export interface PdfLimits {
  maxChars?: number;
  timeBudgetMs?: number;
}

/** The charset from the Content-Type header, else from a meta tag near the top, else UTF-8. */
export function detectCharset(contentType: string, head: Buffer): string {
  const fromHeader = /charset=["']?([\w.:-]+)/i.exec(contentType)?.[1];
  if (fromHeader) return fromHeader;
  const start = head.subarray(0, 4096).toString('latin1');
  return /<meta[^>]+charset=["']?([\w.:-]+)/i.exec(start)?.[1] ?? 'utf-8';
}

function decode(body: Buffer, charset: string): string {
  try {
    return new TextDecoder(charset).decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}

const mediaType = (contentType: string) => contentType.split(';')[0]!.trim().toLowerCase();

/**
 * A PDF whatever the server claims: by its type, by a body that starts like one, or by a `.pdf` path
 * (unless the body is plainly markup, such as a login page served in the PDF's place).
 */
export function isPdf({ url, contentType, firstBytes }: ResponseStart): boolean {
  const type = mediaType(contentType);
  const start = firstBytes.subarray(0, 1024).toString('latin1');
  if (type === 'application/pdf' || type === 'application/x-pdf' || /^\s*%PDF-/.test(start)) return true;
  return /\.pdf$/i.test(url.pathname) && !/^\s*</.test(start);
}

const firstLine = (pages: string[]) =>
  pages
    .join('\n')
    .split('\n')
    .find((line) => line.trim())
    ?.trim()
    .slice(0, 200) ?? '';

async function pdfPage(fetched: Fetched, signal?: AbortSignal, limits: PdfLimits = {}): Promise<Page> {
  // The readers load with the first page of their kind: the chat offers read_url without loading them.
  const { formatPdfText, readPdf } = await import('../formats/pdf/index.js');
  try {
    const { title, pages, pageCount, stopped } = await readPdf(fetched.body, { signal, ...limits });
    const why =
      stopped === 'time'
        ? `the ${budgetWords(limits.timeBudgetMs ?? 0)} time budget was spent`
        : 'that is more text than is shown';
    const count = (n: number) => n.toLocaleString('en-US');
    const note = stopped ? `Read ${count(pages.length)} of ${count(pageCount)} pages: ${why}.` : undefined;
    return {
      url: fetched.url,
      title: title ?? firstLine(pages),
      text: formatPdfText(pages),
      kind: 'pdf',
      pages: pageCount,
      ...(note ? { note } : {}),
    };
  } catch (error) {
    if (error instanceof FormatError) throw new WebError(`${fetched.url}: ${error.message}`);
    throw error;
  }
}

/** Turns a fetched response into readable text, or says why it cannot be read. */
export async function toPage(fetched: Fetched, signal?: AbortSignal, limits?: PdfLimits): Promise<Page> {
  if (fetched.status >= 400) throw new WebError(`${fetched.url} answered HTTP ${fetched.status}.`);
  const type = mediaType(fetched.contentType);
  if (isPdf({ url: new URL(fetched.url), contentType: fetched.contentType, firstBytes: fetched.body })) {
    return pdfPage(fetched, signal, limits);
  }
  const text = decode(fetched.body, detectCharset(fetched.contentType, fetched.body));
  const looksHtml = type === '' && /^\s*</.test(text);
  if (type === 'text/html' || type === 'application/xhtml+xml' || looksHtml) {
    const { extractHtml } = await import('../formats/html/html-to-text.js');
    // Links are kept, resolved against the page's address, so a source can be cited by them.
    const { title, text: body } = extractHtml(text, fetched.url);
    if (!body.trim()) throw new WebError(`${fetched.url} has no readable text (it may need JavaScript).`);
    return { url: fetched.url, title, text: body, kind: 'html' };
  }
  if (type.startsWith('text/') || type === 'application/json' || type.endsWith('+json') || type === '') {
    return { url: fetched.url, title: '', text: text.trim(), kind: 'text' };
  }
  throw new WebError(
    `${fetched.url} is ${type}, which read_url cannot read; only web pages, PDFs, plain text and JSON.`,
  );
}

/**
 * Pages read before (src/cache/ keeps them): given how to fetch the URL (with any conditional request
 * headers) and how to read a response, it answers from the cache, revalidates, or fetches and stores.
 * Every request goes through `fetch`, so the SSRF rules hold for revalidations too.
 */
export interface PageCache {
  page(
    url: string,
    fetch: (headers?: Record<string, string>) => Promise<Fetched>,
    read: (fetched: Fetched) => Promise<Page>,
  ): Promise<Page>;
}

export interface ReadPageOptions extends SafeFetchOptions {
  pdf?: PdfLimits;
  cache?: PageCache;
}

/** Fetches and reads a page; PDFs get their own byte cap, since they are read whole or not at all. */
export async function readPage(url: string, options: ReadPageOptions): Promise<Page> {
  const limitFor = (start: ResponseStart) =>
    isPdf(start) ? { maxBytes: PDF_MAX_BYTES, wholeOnly: 'PDF' } : options.limitFor?.(start);
  const fetch = (headers?: Record<string, string>) => safeFetch(url, { ...options, limitFor, headers });
  const read = (fetched: Fetched) => toPage(fetched, options.signal, options.pdf);
  return options.cache ? options.cache.page(url, fetch, read) : read(await fetch());
}
