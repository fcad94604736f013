import type { Note, NotesStore } from '../store.js';
import { notYours, refuseOthers } from '../user.js';
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
    // jsonb refuses an escaped NUL (\u0000) even where json keeps it: a tag's becomes U+FFFD.
    const tags = [
      ...new Set((note.tags ?? []).map((t) => t.replaceAll('\u0000', '\uFFFD').trim()).filter(Boolean)),
    ];
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
        `SELECT ${COLUMNS} FROM notes, pg_catalog.websearch_to_tsquery('english', $1) q WHERE tsv @@ q
         ORDER BY pg_catalog.ts_rank_cd('${WEIGHTS}', tsv, q, 1) DESC, created_at DESC, id DESC LIMIT $2`,
        [text, limit],
      );
    let rows = await search(websearch(words, 'and'));
    if (rows.length === 0) rows = await search(websearch(words, 'or'));
    return rows.map(toNote);
  }

  /** Deletes one of this person's notes; another's is refused (the server refuses it too, by its role). */
  async delete(id: number): Promise<boolean> {
    const found = await this.db.one<{ author: string | null; owner: string | null }>(
      'SELECT created_by AS author, owner_role AS owner FROM notes WHERE id = $1',
      [id],
    );
    if (!found) return false;
    refuseOthers('note', id, found.author, this.user);
    const gone = await this.db.query('DELETE FROM notes WHERE id = $1 RETURNING id', [id]);
    // Row-level security kept it: written under another role (a label shared by two roles).
    if (gone.length === 0) throw notYours('note', id, found.owner ?? 'the admin', this.user);
    return true;
  }
}
