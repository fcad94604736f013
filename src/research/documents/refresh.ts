import { AbortedError } from '../../errors.js';
import type { Db } from '../../store/open.js';
import { forgetOlderReads } from './extractor.js';
import { type Passage, splitPassages } from './passages.js';
import { fileTitle, readDocumentFile, reasonOf } from './read.js';
import { type ContentFile, listContentFiles, type SkippedFile } from './walk.js';

// Brings the index of one content folder up to date. A file is read again only when its modification
// time, size or path changed; one that cannot be read is skipped (and tried again next run), never fatal.

export interface RefreshStats {
  added: number;
  updated: number;
  removed: number;
  unchanged: number;
  /** Files left out this run and why, each once; paths are under the content folder. */
  skipped: SkippedFile[];
}

interface Indexed {
  id: number;
  path: string;
  mtime_ms: number;
  size: number;
}

interface ReadFile {
  file: ContentFile;
  title: string;
  body: string;
  passages: Passage[];
}

/** Read files are written in batches of this many characters: one transaction each, bounded memory. */
const BATCH_CHARS = 8_000_000;

/** Ctrl-C (`signal`) stops between files and inside a PDF; what was written before stays written. */
export async function refreshIndex(
  db: Db,
  root: string,
  options: { signal?: AbortSignal } = {},
): Promise<RefreshStats> {
  const { signal } = options;
  forgetOlderReads(db);
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

  const upsert = db.prepare(
    `INSERT INTO documents (root, slug, path, title, body, mtime_ms, size) VALUES (@root, @slug, @path, @title, @body, @mtime, @size)
     ON CONFLICT (root, slug) DO UPDATE SET path = excluded.path, title = excluded.title, body = excluded.body,
       mtime_ms = excluded.mtime_ms, size = excluded.size
     RETURNING id`,
  );
  const clearPassages = db.prepare('DELETE FROM passages WHERE document_id = ?');
  // One statement per document: FTS5 flushes its pending terms at the end of every statement a trigger
  // writes in, so a row at a time indexes two to three times slower.
  const insertPassages = db.prepare(
    `INSERT INTO passages (document_id, ordinal, heading_path, start_offset, end_offset, text)
     SELECT ?, key, value ->> 0, value ->> 1, value ->> 2, value ->> 3 FROM json_each(?)`,
  );
  const remove = db.prepare('DELETE FROM documents WHERE id = ?');

  // A document and its passages are written in one transaction, so no reader sees one without the other.
  const write = db.transaction((batch: ReadFile[], gone: number[]) => {
    for (const id of gone) remove.run(id);
    for (const { file, title, body, passages } of batch) {
      const { id } = upsert.get({
        root,
        slug: file.slug,
        path: file.path,
        title,
        body,
        mtime: file.mtimeMs,
        size: file.size,
      }) as { id: number };
      clearPassages.run(id);
      insertPassages.run(id, JSON.stringify(passages.map((p) => [p.headingPath, p.start, p.end, p.text])));
    }
  });

  let batch: ReadFile[] = [];
  let batchChars = 0;
  const gone: number[] = [];
  const flush = () => {
    write(batch, gone.splice(0));
    batch = [];
    batchChars = 0;
  };
  for (const file of files) {
    const k = known.get(file.slug);
    known.delete(file.slug);
    if (k && k.mtime_ms === file.mtimeMs && k.size === file.size && k.path === file.path) {
      stats.unchanged++;
      continue;
    }
    if (signal?.aborted) throw new AbortedError();
    try {
      const { title, text } = await readDocumentFile(file.path, { size: file.size, signal });
      batch.push({ file, title: title ?? fileTitle(file.path), body: text, passages: splitPassages(text) });
      batchChars += text.length;
      if (k) stats.updated++;
      else stats.added++;
    } catch (error) {
      if (signal?.aborted) throw new AbortedError();
      skipped.push({ path: file.relPath, reason: reasonOf(error) });
      // What was indexed from an earlier version no longer reads: it is not kept as if it did.
      if (k) {
        gone.push(k.id);
        stats.removed++;
      }
    }
    if (batchChars >= BATCH_CHARS) flush();
  }
  for (const k of known.values()) {
    gone.push(k.id);
    stats.removed++;
  }
  flush();
  return stats;
}
