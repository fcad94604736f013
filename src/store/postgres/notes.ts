import type { Note, NotesStore } from '../store.js';
import { type Db, withUser } from './db.js';
import { WEIGHTS, websearch, wordsOf } from './fts.js';

interface NoteRow {
  id: number;
  title: string | null;
  content: string;
  tags: string[];
  created_at: number;
  created_by: string | null;
}

const toNote = (r: NoteRow): Note =>
  withUser(
    {
      id: r.id,
      title: r.title,
      content: r.content,
      tags: r.tags,
      createdAt: new Date(r.created_at).toISOString(),
    },
    r.created_by,
  );

const COLUMNS = 'id, title, content, tags, created_at, created_by';

export class PgNotes implements NotesStore {
  constructor(
    private readonly db: Db,
    private readonly user: string,
  ) {}

  async add(note: { content: string; title?: string; tags?: string[] }): Promise<Note> {
    const content = note.content.trim();
    if (!content) throw new Error('A note needs some content.');
    const tags = [...new Set((note.tags ?? []).map((t) => t.trim()).filter(Boolean))];
    const row = await this.db.one<NoteRow>(
      `INSERT INTO notes (content, title, tags, created_at, created_by) VALUES ($1, $2, $3, $4, $5)
       RETURNING ${COLUMNS}`,
      [content, note.title?.trim() || null, JSON.stringify(tags), Date.now(), this.user],
    );
    return toNote(row!);
  }

  /** Newest first; with a query, notes with every word first, else (none has them all) with any. */
  async list(query?: string, limit = 50): Promise<Note[]> {
    if (query === undefined)
      return (
        await this.db.query<NoteRow>(
          `SELECT ${COLUMNS} FROM notes ORDER BY created_at DESC, id DESC LIMIT $1`,
          [limit],
        )
      ).map(toNote);
    const words = wordsOf(query);
    if (words.length === 0) return [];
    const search = (text: string) =>
      this.db.query<NoteRow>(
        `SELECT ${COLUMNS} FROM notes, websearch_to_tsquery('english', $1) q WHERE tsv @@ q
         ORDER BY ts_rank_cd('${WEIGHTS}', tsv, q, 1) DESC, created_at DESC, id DESC LIMIT $2`,
        [text, limit],
      );
    let rows = await search(websearch(words, 'and'));
    if (rows.length === 0) rows = await search(websearch(words, 'or'));
    return rows.map(toNote);
  }

  async delete(id: number): Promise<boolean> {
    return (await this.db.query('DELETE FROM notes WHERE id = $1 RETURNING id', [id])).length > 0;
  }
}
