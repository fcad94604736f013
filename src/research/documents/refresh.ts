import { AbortedError } from '../../errors.js';
import { StoreError, storeError } from '../../store/errors.js';
import { repairIndex } from '../../store/health.js';
import { type Db, pathOf } from '../../store/open.js';
import { forgetOlderReads } from './extractor.js';
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

interface Indexed {
  id: number;
  path: string;
  mtime_ms: number;
  size: number;
}

interface ReadFile {
  file: ContentFile;
  /** Read, split and compressed outside the write transaction, so that it stays short. */
  prepared: PreparedFile;
}

/** Read files are written in batches of this many characters: each a short transaction, bounded memory. */
const BATCH_CHARS = 2_000_000;

/** Ctrl-C (`signal`) stops between files and inside a PDF; what was written before stays written. */
export async function refreshIndex(
  db: Db,
  root: string,
  options: RefreshOptions = {},
): Promise<RefreshStats> {
  if (db.readonly) {
    options.onNotice?.('The database is read-only: the document index is used as it is, without updating.');
    return asIndexed(db, root, []);
  }
  try {
    return await refreshOnce(db, root, options);
  } catch (error) {
    const explained = storeError(pathOf(db), error);
    if (!(explained instanceof StoreError) || explained.problem !== 'damaged' || !repairIndex(db))
      throw explained;
    options.onNotice?.(
      `The document index in ${pathOf(db)} was damaged: it was cleared and is being rebuilt from the files.`,
    );
    return refreshOnce(db, root, options);
  }
}

async function refreshOnce(db: Db, root: string, options: RefreshOptions): Promise<RefreshStats> {
  const askedAt = Date.now();
  const lease = await takeLease(db, root, { signal: options.signal });
  try {
    // Another process brought the folder up to date, walking it after this one asked: nothing to redo.
    const done = db.prepare('SELECT walked_at, skipped FROM indexed_roots WHERE root = ?').get(root) as
      | { walked_at: number; skipped: string }
      | undefined;
    if (done && done.walked_at >= askedAt)
      return asIndexed(db, root, JSON.parse(done.skipped) as SkippedFile[]);
    // Documents an older extractor read are read again once (better text, real headings).
    forgetOlderReads(db);
    const stats = await update(db, root, options.signal);
    db.prepare(
      `INSERT INTO indexed_roots (root, walked_at, skipped) VALUES (?, ?, ?)
       ON CONFLICT (root) DO UPDATE SET walked_at = excluded.walked_at, skipped = excluded.skipped`,
    ).run(root, lease.takenAt, JSON.stringify(stats.skipped));
    return stats;
  } finally {
    try {
      lease.release();
    } catch {
      // Left behind, it is recognised as this process's once the process has ended.
    }
  }
}

/** The index as it stands, reported as a refresh that found nothing to change. */
function asIndexed(db: Db, root: string, skipped: SkippedFile[]): RefreshStats {
  const unchanged = db.prepare('SELECT count(*) FROM documents WHERE root = ?').pluck().get(root) as number;
  return { added: 0, updated: 0, removed: 0, unchanged, skipped };
}

async function update(db: Db, root: string, signal: AbortSignal | undefined): Promise<RefreshStats> {
  const { files, skipped } = listContentFiles(root);
  const known = new Map(
    (
      db
        .prepare('SELECT id, slug, path, mtime_ms, size FROM documents WHERE root = ?')
        .all(root) as (Indexed & {
        slug: string;
      })[]
    ).map((r) => [r.slug, r]),
  );
  const stats: RefreshStats = { added: 0, updated: 0, removed: 0, unchanged: 0, skipped };

  const current = db.prepare('SELECT path, mtime_ms, size FROM documents WHERE root = ? AND slug = ?');
  const upsert = db.prepare(
    `INSERT INTO documents (root, slug, path, title, mtime_ms, size, length) VALUES (@root, @slug, @path, @title, @mtime, @size, @length)
     ON CONFLICT (root, slug) DO UPDATE SET path = excluded.path, title = excluded.title,
       mtime_ms = excluded.mtime_ms, size = excluded.size, length = excluded.length
     RETURNING id`,
  );
  const clearPassages = db.prepare('DELETE FROM passage_spans WHERE document_id = ?');
  const clearBlocks = db.prepare('DELETE FROM document_blocks WHERE document_id = ?');
  const insertBlock = db.prepare(
    'INSERT INTO document_blocks (document_id, start_offset, data) VALUES (?, ?, ?)',
  );
  const firstId = db.prepare('SELECT coalesce(max(id), 0) + 1 FROM passage_spans').pluck();
  // One statement per document and table: FTS5 indexes a statement's rows together, several times faster
  // than a row at a time. Ids are given here, so a document's passages have consecutive ids.
  const insertSpans = db.prepare(
    `INSERT INTO passage_spans (id, document_id, ordinal, heading_path, start_offset, end_offset)
     SELECT @first + key, @document, key, value ->> 0, value ->> 1, value ->> 2 FROM json_each(@spans)`,
  );
  const insertText = db.prepare(
    `INSERT INTO passages_fts (rowid, text, heading_path)
     SELECT @first + key, value ->> 0, value ->> 1 FROM json_each(@texts)`,
  );
  const remove = db.prepare('DELETE FROM documents WHERE id = ?');

  // A document and its passages are written in one transaction, so no reader sees one without the other.
  // A file that another process indexed meanwhile (same path, time and size) is not written twice.
  const write = db.transaction((batch: ReadFile[], gone: number[]) => {
    for (const id of gone) remove.run(id);
    for (const { file, prepared } of batch) {
      const now = current.get(root, file.slug) as Omit<Indexed, 'id'> | undefined;
      if (now && now.mtime_ms === file.mtimeMs && now.size === file.size && now.path === file.path) continue;
      const { id } = upsert.get({
        root,
        slug: file.slug,
        path: file.path,
        title: prepared.title,
        mtime: file.mtimeMs,
        size: file.size,
        length: prepared.chars,
      }) as { id: number };
      clearPassages.run(id);
      clearBlocks.run(id);
      for (const block of prepared.blocks) insertBlock.run(id, block.start, block.data);
      const first = firstId.get() as number;
      insertSpans.run({ first, document: id, spans: prepared.spans });
      insertText.run({ first, texts: prepared.texts });
    }
  });

  const changed: { file: ContentFile; known?: Indexed }[] = [];
  for (const file of files) {
    const k = known.get(file.slug);
    known.delete(file.slug);
    if (k && k.mtime_ms === file.mtimeMs && k.size === file.size && k.path === file.path) stats.unchanged++;
    else changed.push({ file, known: k });
  }
  const gone = [...known.values()].map((k) => k.id);
  stats.removed += gone.length;

  let batch: ReadFile[] = [];
  let batchChars = 0;
  const flush = () => {
    if (batch.length > 0 || gone.length > 0) write.immediate(batch, gone.splice(0));
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
        batch.push({ file, prepared });
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
      if (batchChars >= BATCH_CHARS) flush();
    }
  } finally {
    reader.close();
  }
  flush();
  return stats;
}
