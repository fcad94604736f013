import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { maxAgeSetting } from '../../cache/duration.js';
import { pageCache } from '../../cache/pages.js';
import { AgentError, errorMessage, UsageError } from '../../errors.js';
import { FormatError } from '../../formats/errors.js';
import {
  type DocumentKind,
  EXTENSIONS,
  fileTitle,
  isDocumentFile,
  maxDocumentBytes,
  readDocumentFile,
  reasonOf,
} from '../../research/documents/read.js';
import type { Store } from '../../store/store.js';
import { WebError } from '../../web/errors.js';
import { parseAllowHosts } from '../../web/net/address-policy.js';
import { checkUrl } from '../../web/net/safe-fetch.js';
import { readPage } from '../../web/read.js';
import { openDb } from '../open-db.js';

export interface ReadOptions {
  maxChars?: number;
  /** `--max-size` in MiB: the largest local file read. */
  maxSize?: number;
  json?: boolean;
  /** `--max-age` in milliseconds. */
  maxAge?: number;
  refresh?: boolean;
  db?: string;
}

interface ReadResult {
  title: string | null;
  kind: DocumentKind | 'text';
  location: string;
  pages: number | null;
  text: string;
  note?: string;
  /** The note is about a local file's pages, already marked in its text: said on stderr, not before it. */
  noteOnStderr?: boolean;
}

const isUrl = (source: string) => /^[a-z][a-z\d+.-]*:\/\//i.test(source);

async function readUrl(source: string, options: ReadOptions): Promise<ReadResult> {
  let url: URL;
  try {
    url = new URL(source);
    checkUrl(url, parseAllowHosts(process.env.AGENT_ALLOW_HOSTS));
  } catch (error) {
    throw new UsageError(error instanceof WebError ? error.message : `"${source}" is not a valid URL.`);
  }
  const maxAgeMs = maxAgeSetting(options.maxAge, process.env);
  const store = await cacheStore(options.db);
  try {
    const pdf = options.maxChars === undefined ? {} : { maxChars: options.maxChars };
    const cache = store && pageCache(store.cache, { maxAgeMs, refresh: options.refresh, env: process.env });
    const page = await readPage(url.href, { env: process.env, pdf, cache });
    return {
      title: page.title || null,
      kind: page.kind,
      location: page.url,
      pages: page.pages ?? null,
      text: page.text,
      ...(page.note ? { note: page.note } : {}),
    };
  } catch (error) {
    if (error instanceof WebError) throw new AgentError(error.message);
    throw error;
  } finally {
    await store?.close();
  }
}

/** The database for the page cache; reading a URL does not need it, so one that cannot be opened is skipped. */
async function cacheStore(target: string | undefined): Promise<Store | undefined> {
  try {
    return await openDb(target);
  } catch (error) {
    process.stderr.write(`agent: the page cache is not used: ${errorMessage(error)}\n`);
    return undefined;
  }
}

/** A file:// URL's path; undefined for any other source. */
function fileUrlPath(source: string): string | undefined {
  if (!/^file:/i.test(source)) return undefined;
  try {
    return fileURLToPath(source);
  } catch {
    throw new UsageError(`"${source}" is not a file URL this system can open.`);
  }
}

async function readFile(source: string, options: ReadOptions): Promise<ReadResult> {
  const path = resolve(source);
  // The flag wins over AGENT_MAX_DOCUMENT_MB.
  const maxBytes =
    options.maxSize === undefined ? maxDocumentBytes(process.env) : Math.floor(options.maxSize * 2 ** 20);
  let size: number;
  try {
    const stat = statSync(path);
    if (stat.isDirectory()) throw new UsageError(`${source} is a folder, not a document.`);
    size = stat.size;
  } catch (error) {
    if (error instanceof UsageError) throw error;
    const code = (error as { code?: string }).code;
    throw new UsageError(code === 'ENOENT' ? `No such file: ${source}` : `${source}: ${reasonOf(error)}`);
  }
  if (!isDocumentFile(path))
    throw new AgentError(`${source}: not a format agent reads (${EXTENSIONS.join(', ')}).`);
  try {
    // A PDF is read only as far as the characters asked for.
    const doc = await readDocumentFile(path, { size, maxChars: options.maxChars, maxBytes });
    return {
      title: doc.title ?? fileTitle(path),
      kind: doc.kind,
      location: path,
      pages: doc.pages ?? null,
      text: doc.text,
      // Said once on stderr: the text itself marks where the unreadable pages are.
      ...(doc.note ? { note: doc.note, noteOnStderr: true } : {}),
    };
  } catch (error) {
    if (error instanceof FormatError) throw new AgentError(`${source}: ${reasonOf(error)}.`);
    throw error;
  }
}

/** The text cut at `max` characters with a visible marker. */
function cut(text: string, max: number | undefined): string {
  if (max === undefined || text.length <= max) return text;
  return `${text.slice(0, max)}\n[… cut: ${text.length - max} more characters not shown]`;
}

export async function runRead(source: string, options: ReadOptions): Promise<void> {
  const local = fileUrlPath(source);
  const read =
    local !== undefined
      ? await readFile(local, options)
      : isUrl(source)
        ? await readUrl(source, options)
        : await readFile(source, options);
  const text = cut(read.text, options.maxChars);
  if (read.noteOnStderr) process.stderr.write(`agent: ${source}: ${read.note}\n`);
  if (options.json) {
    const { title, kind, location, pages, note } = read;
    const json = { title, kind, location, pages, text, ...(note ? { note } : {}) };
    process.stdout.write(`${JSON.stringify(json, null, 2)}\n`);
    return;
  }
  // Title first, unless the text already opens with it as its heading.
  // A PDF's first line is its page marker: the line after it is the one to compare.
  const first = text.replace(/^\[Page 1\]\n/, '').split('\n', 1)[0]!;
  const opensWithTitle = /^#{1,6} /.test(first) && first.replace(/^#+ /, '').trim() === read.title;
  const head = read.title && !opensWithTitle ? `# ${read.title}\n\n` : '';
  const note = read.note && !read.noteOnStderr ? `[${read.note}]\n\n` : '';
  process.stdout.write(`${head}${note}${text}\n`);
}
