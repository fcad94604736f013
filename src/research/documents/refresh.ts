import { AbortedError } from '../../errors.js';
import { EXTRACTOR_VERSION } from '../../formats/version.js';
import { StoreError, storeError } from '../../store/errors.js';
import type { DocumentWrite, IndexedDocument, Store } from '../../store/store.js';
import { takeLease } from './lease.js';
import type { PreparedFile } from './prepare.js';
import { reasonOf } from './read.js';
import { fileReader, ReaderError } from './readers.js';
import { type ContentFile, listContentFiles, type SkippedFile } from './walk.js';

// Brings the index of one content folder up to date. A file is read again only when its modification
// time, size or path changed; one that cannot be read is skipped (and tried again next run), never fatal.
// One process indexes a folder at a time (see lease.ts); the files are read outside any transaction and
// written in short ones, so other processes (a chat saving, a reader) wait at most one batch.

export interface RefreshStats {
  added: number;
  updated: number;
  removed: number;
  unchanged: number;
  /** Files left out this run and why, each once; paths are under the content folder. */
  skipped: SkippedFile[];
}

export interface RefreshOptions {
  signal?: AbortSignal;
  /** Told, in one line, when the index is used as it is (read-only database) or was rebuilt. */
  onNotice?: (message: string) => void;
}

/** Read files are written in batches of this many characters: each a short transaction, bounded memory. */
const BATCH_CHARS = 2_000_000;

/** Ctrl-C (`signal`) stops between files and inside a PDF; what was written before stays written. */
export async function refreshIndex(
  store: Store,
  root: string,
  options: RefreshOptions = {},
): Promise<RefreshStats> {
  if (store.readOnly) {
    options.onNotice?.('The database is read-only: the document index is used as it is, without updating.');
    return asIndexed(store, root, []);
  }
  try {
    return await refreshOnce(store, root, options);
  } catch (error) {
    const explained = storeError(store.location, error);
    if (
      !(explained instanceof StoreError) ||
      explained.problem !== 'damaged' ||
      !(await store.index.repair().catch(() => false))
    )
      throw explained;
    options.onNotice?.(
      `The document index in ${store.location} was damaged: it was cleared and is being rebuilt from the files.`,
    );
    return refreshOnce(store, root, options);
  }
}

async function refreshOnce(store: Store, root: string, options: RefreshOptions): Promise<RefreshStats> {
  const askedAt = Date.now();
  const lease = await takeLease(store.index, root, { signal: options.signal });
  try {
    // Another process brought the folder up to date, walking it after this one asked: nothing to redo.
    const done = await store.index.walked(root);
    if (done && done.walkedAt >= askedAt) return asIndexed(store, root, done.skipped as SkippedFile[]);
    // Documents an older extractor read are read again once (better text, real headings).
    await store.index.forgetOlderReads(EXTRACTOR_VERSION);
    const stats = await update(store, root, options.signal);
    await store.index.setWalked(root, lease.takenAt, stats.skipped);
    return stats;
  } finally {
    // Left behind, it is recognised as this process's once the process has ended.
    await lease.release().catch(() => {});
  }
}

/** The index as it stands, reported as a refresh that found nothing to change. */
async function asIndexed(store: Store, root: string, skipped: SkippedFile[]): Promise<RefreshStats> {
  return { added: 0, updated: 0, removed: 0, unchanged: await store.index.count(root), skipped };
}

async function update(store: Store, root: string, signal: AbortSignal | undefined): Promise<RefreshStats> {
  const { files, skipped } = listContentFiles(root);
  const known = new Map((await store.index.documents(root)).map((d) => [d.slug, d]));
  const stats: RefreshStats = { added: 0, updated: 0, removed: 0, unchanged: 0, skipped };

  const changed: { file: ContentFile; known?: IndexedDocument }[] = [];
  for (const file of files) {
    const k = known.get(file.slug);
    known.delete(file.slug);
    if (k && k.mtimeMs === file.mtimeMs && k.size === file.size && k.path === file.path) stats.unchanged++;
    else changed.push({ file, known: k });
  }
  const gone = [...known.values()].map((k) => k.id);
  stats.removed += gone.length;

  // A batch of documents is one short transaction: other processes wait at most that long.
  let batch: DocumentWrite[] = [];
  let batchChars = 0;
  const flush = async () => {
    if (batch.length > 0 || gone.length > 0) await store.index.write(root, batch, gone.splice(0));
    batch = [];
    batchChars = 0;
  };
  const reader = fileReader(
    changed.reduce((n, c) => n + c.file.size, 0),
    signal,
  );
  try {
    // In workers, files are prepared ahead of the writes (a bounded amount); they are written in order.
    const ahead: Promise<PreparedFile | Error>[] = [];
    let started = 0;
    let aheadBytes = 0;
    for (const { file, known: k } of changed) {
      while (started < changed.length && (ahead.length === 0 || aheadBytes < reader.aheadBytes)) {
        const next = changed[started++]!.file;
        aheadBytes += next.size;
        ahead.push(reader.prepare(next.path, next.size).catch((error: Error) => error));
      }
      const prepared = await ahead.shift()!;
      aheadBytes -= file.size;
      if (signal?.aborted) throw new AbortedError();
      if (!(prepared instanceof Error)) {
        batch.push(toWrite(file, prepared));
        batchChars += prepared.chars;
        if (k) stats.updated++;
        else stats.added++;
      } else {
        if (prepared instanceof AbortedError || prepared instanceof ReaderError) throw prepared;
        skipped.push({ path: file.relPath, reason: reasonOf(prepared) });
        // What was indexed from an earlier version no longer reads: it is not kept as if it did.
        if (k) {
          gone.push(k.id);
          stats.removed++;
        }
      }
      if (batchChars >= BATCH_CHARS) await flush();
    }
  } finally {
    reader.close();
  }
  await flush();
  return stats;
}

/** Read, split and compressed outside the write transaction, so that it stays short. */
const toWrite = (file: ContentFile, prepared: PreparedFile): DocumentWrite => ({
  slug: file.slug,
  path: file.path,
  title: prepared.title,
  mtimeMs: file.mtimeMs,
  size: file.size,
  chars: prepared.chars,
  blocks: prepared.blocks,
  spans: prepared.spans,
  texts: prepared.texts,
});
