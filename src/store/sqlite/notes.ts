import type { Note } from '../types.js';
import { ftsQuery } from './fts.js';
import { type Db, writeError } from './open.js';

interface NoteRow {
  id: number;
  title: string | null;
  content: string;
  tags: string;
  created_at: number;
  created_by: string | null;
}

const toNote = (r: NoteRow): Note => ({
  id: r.id,
  title: r.title,
  content: r.content,
  tags: JSON.parse(r.tags) as string[],
  createdAt: new Date(r.created_at).toISOString(),
  user: r.created_by ?? '',
});

export function addNote(
  db: Db,
  note: { content: string; title?: string; tags?: string[] },
  user: string | null = null,
): Note {
  const content = note.content.trim();
  if (!content) throw new Error('A note needs some content.');
  const tags = [...new Set((note.tags ?? []).map((t) => t.trim()).filter(Boolean))];
  try {
    const row = db
      .prepare(
        'INSERT INTO notes (content, title, tags, created_at, created_by) VALUES (?, ?, ?, ?, ?) RETURNING *',
      )
      .get(content, note.title?.trim() || null, JSON.stringify(tags), Date.now(), user) as NoteRow;
    return toNote(row);
  } catch (error) {
    throw writeError(db, error);
  }
}

/**
 * Newest first; with a query, the best full-text matches first. The query is treated as words, not FTS5
 * syntax, so that a user's `don't` or `C++` cannot cause a syntax error.
 */
export function listNotes(db: Db, query?: string, limit = 50): Note[] {
  if (query === undefined) {
    return (
      db.prepare('SELECT * FROM notes ORDER BY created_at DESC, id DESC LIMIT ?').all(limit) as NoteRow[]
    ).map(toNote);
  }
  const words = query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  if (words.length === 0) return [];
  const search = db.prepare(
    `SELECT notes.* FROM notes_fts CROSS JOIN notes ON notes.id = notes_fts.rowid
     WHERE notes_fts MATCH ? ORDER BY bm25(notes_fts), notes.created_at DESC LIMIT ?`,
  );
  // Notes with every word first; only when none has them all, notes with any of them.
  let rows = search.all(ftsQuery(words, 'AND'), limit) as NoteRow[];
  if (rows.length === 0) rows = search.all(ftsQuery(words, 'OR'), limit) as NoteRow[];
  return rows.map(toNote);
}

/** Removes a note; false when there was none with that id. */
export function deleteNote(db: Db, id: number): boolean {
  try {
    return db.prepare('DELETE FROM notes WHERE id = ?').run(id).changes > 0;
  } catch (error) {
    throw writeError(db, error);
  }
}
