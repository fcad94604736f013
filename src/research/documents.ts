import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '../errors.js';
import { ftsQuery } from '../store/fts.js';
import type { Db } from '../store/open.js';

// Local documents: every Markdown or text file under the content folder, indexed in SQLite FTS5 and
// refreshed by comparing each file's mtime and size with what was indexed.

const EXTENSIONS = /\.(md|markdown|txt)$/i;

export interface DocumentInfo {
  slug: string;
  title: string;
  path: string;
}

export interface Document extends DocumentInfo {
  body: string;
}

/** `--content`, else `AGENT_CONTENT_DIR`, else the sample documents shipped in the package. */
export function contentDirectory(flag?: string, env: NodeJS.ProcessEnv = process.env): string {
  const dir = flag || env.AGENT_CONTENT_DIR || fileURLToPath(new URL('../../content', import.meta.url));
  const abs = resolve(dir);
  try {
    if (!statSync(abs).isDirectory()) throw new Error('not a folder');
  } catch {
    throw new ConfigError(
      `The content folder ${abs} does not exist or is not a folder. Point --content or AGENT_CONTENT_DIR at one.`,
    );
  }
  return abs;
}

/** The first Markdown heading, else the first non-empty line, else the slug. */
export function titleOf(body: string, slug: string): string {
  const heading = /^#{1,6}\s+(.+?)\s*#*\s*$/m.exec(body)?.[1];
  const firstLine = body
    .split('\n')
    .find((l) => l.trim())
    ?.trim();
  return (heading ?? firstLine ?? slug).slice(0, 200);
}

function listFiles(root: string): { path: string; slug: string; mtimeMs: number; size: number }[] {
  const out: { path: string; slug: string; mtimeMs: number; size: number }[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name.startsWith('.')) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile() && EXTENSIONS.test(entry.name)) {
        const st = statSync(path);
        const slug = relative(root, path).split(sep).join('/').replace(EXTENSIONS, '');
        out.push({ path, slug, mtimeMs: Math.floor(st.mtimeMs), size: st.size });
      }
    }
  };
  walk(root);
  return out;
}

export interface RefreshStats {
  added: number;
  updated: number;
  removed: number;
  unchanged: number;
}

/** Brings the index of one content folder up to date; only changed files are read. */
export function refreshIndex(db: Db, root: string): RefreshStats {
  const files = listFiles(root);
  const known = new Map(
    (
      db.prepare('SELECT slug, mtime_ms, size FROM documents WHERE root = ?').all(root) as {
        slug: string;
        mtime_ms: number;
        size: number;
      }[]
    ).map((r) => [r.slug, r]),
  );
  const stats: RefreshStats = { added: 0, updated: 0, removed: 0, unchanged: 0 };
  const upsert = db.prepare(
    `INSERT INTO documents (root, slug, path, title, body, mtime_ms, size) VALUES (@root, @slug, @path, @title, @body, @mtime, @size)
     ON CONFLICT (root, slug) DO UPDATE SET path = excluded.path, title = excluded.title, body = excluded.body,
       mtime_ms = excluded.mtime_ms, size = excluded.size`,
  );
  const remove = db.prepare('DELETE FROM documents WHERE root = ? AND slug = ?');
  db.transaction(() => {
    for (const f of files) {
      const k = known.get(f.slug);
      known.delete(f.slug);
      if (k && k.mtime_ms === f.mtimeMs && k.size === f.size) {
        stats.unchanged++;
        continue;
      }
      const body = readFileSync(f.path, 'utf8');
      upsert.run({
        root,
        slug: f.slug,
        path: f.path,
        title: titleOf(body, f.slug),
        body,
        mtime: f.mtimeMs,
        size: f.size,
      });
      if (k) stats.updated++;
      else stats.added++;
    }
    for (const slug of known.keys()) {
      remove.run(root, slug);
      stats.removed++;
    }
  })();
  return stats;
}

export function listDocuments(db: Db, root: string): DocumentInfo[] {
  return db
    .prepare('SELECT slug, title, path FROM documents WHERE root = ? ORDER BY slug')
    .all(root) as DocumentInfo[];
}

export function getDocument(db: Db, root: string, slug: string): Document | undefined {
  return db
    .prepare('SELECT slug, title, path, body FROM documents WHERE root = ? AND slug = ?')
    .get(root, slug) as Document | undefined;
}

const STOPWORDS = new Set(
  'a an and are as at be but by can could do does for from has have how i if in is it its may me my of on or our should so than that the their them then there these this to was we what when where which who why will with without would you your'.split(
    ' ',
  ),
);

/** The words of a question worth searching for; "without" and "not" stay out, they match everything. */
export function queryTerms(text: string): string[] {
  const words = text.toLowerCase().match(/[\p{L}\p{N}$]+/gu) ?? [];
  return [...new Set(words.map((w) => w.replace(/^\$/, '')).filter((w) => w && !STOPWORDS.has(w)))];
}

export interface SearchHit extends DocumentInfo {
  score: number;
}

/** BM25 over title and body (a title match counts five times), best first. */
export function searchDocuments(db: Db, root: string, query: string, limit = 5): SearchHit[] {
  const terms = queryTerms(query);
  if (terms.length === 0) return [];
  const match = ftsQuery(terms, 'OR');
  return db
    .prepare(
      // CROSS JOIN keeps the full-text index as the outer loop; otherwise SQLite may walk every
      // document of the folder and run the MATCH once per row.
      `SELECT d.slug, d.title, d.path, -bm25(documents_fts, 5.0, 1.0) AS score
       FROM documents_fts CROSS JOIN documents d ON d.id = documents_fts.rowid
       WHERE documents_fts MATCH ? AND d.root = ? ORDER BY bm25(documents_fts, 5.0, 1.0) LIMIT ?`,
    )
    .all(match, root, limit) as SearchHit[];
}
