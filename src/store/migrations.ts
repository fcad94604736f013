import type { Database } from 'better-sqlite3';

// Each step runs once, in order, inside a transaction, and is recorded in `schema_migrations` by name.
// Never edit a step that has shipped: add a new one.
export interface Migration {
  name: string;
  up(db: Database): void;
}

export const migrations: Migration[] = [
  {
    name: '001_usage_ledger',
    up(db) {
      db.exec(`
        CREATE TABLE usage_ledger (
          id INTEGER PRIMARY KEY,
          ts INTEGER NOT NULL,               -- unix epoch milliseconds
          command TEXT NOT NULL,             -- chat | research
          run_id TEXT NOT NULL,              -- chat session or research run
          step TEXT NOT NULL,                -- chat | plan | extract | write ...
          provider TEXT NOT NULL,
          model TEXT NOT NULL,
          input_tokens INTEGER NOT NULL,     -- uncached input only
          cache_read_tokens INTEGER NOT NULL,
          cache_write_tokens INTEGER NOT NULL,
          output_tokens INTEGER NOT NULL,    -- includes reasoning
          reasoning_tokens INTEGER NOT NULL, -- part of output, for display
          price_input REAL,                  -- USD per million tokens, as used for this row
          price_output REAL,
          price_cache_read REAL,
          price_cache_write REAL,
          price_source TEXT,
          cost_usd REAL                      -- NULL when the model has no known price
        );
        CREATE INDEX usage_ledger_ts ON usage_ledger (ts);
      `);
    },
  },
  {
    name: '002_notes',
    up(db) {
      db.exec(`
        CREATE TABLE notes (
          id INTEGER PRIMARY KEY,
          content TEXT NOT NULL CHECK (length(trim(content)) > 0),
          title TEXT,
          tags TEXT NOT NULL DEFAULT '[]',   -- JSON array of strings
          created_at INTEGER NOT NULL        -- unix epoch milliseconds
        );
        CREATE VIRTUAL TABLE notes_fts USING fts5(
          title, content, tags, content='notes', content_rowid='id', tokenize='porter unicode61'
        );
        CREATE TRIGGER notes_ai AFTER INSERT ON notes BEGIN
          INSERT INTO notes_fts(rowid, title, content, tags) VALUES (new.id, new.title, new.content, new.tags);
        END;
        CREATE TRIGGER notes_ad AFTER DELETE ON notes BEGIN
          INSERT INTO notes_fts(notes_fts, rowid, title, content, tags)
            VALUES ('delete', old.id, old.title, old.content, old.tags);
        END;
        CREATE TRIGGER notes_au AFTER UPDATE ON notes BEGIN
          INSERT INTO notes_fts(notes_fts, rowid, title, content, tags)
            VALUES ('delete', old.id, old.title, old.content, old.tags);
          INSERT INTO notes_fts(rowid, title, content, tags) VALUES (new.id, new.title, new.content, new.tags);
        END;
      `);
    },
  },
  {
    name: '003_documents',
    up(db) {
      db.exec(`
        CREATE TABLE documents (
          id INTEGER PRIMARY KEY,
          root TEXT NOT NULL,                -- the content folder, absolute
          slug TEXT NOT NULL,                -- path under root without extension
          path TEXT NOT NULL,                -- absolute file path
          title TEXT NOT NULL,
          body TEXT NOT NULL,
          mtime_ms INTEGER NOT NULL,
          size INTEGER NOT NULL,
          UNIQUE (root, slug)
        );
        CREATE VIRTUAL TABLE documents_fts USING fts5(
          title, body, content='documents', content_rowid='id', tokenize='porter unicode61'
        );
        CREATE TRIGGER documents_ai AFTER INSERT ON documents BEGIN
          INSERT INTO documents_fts(rowid, title, body) VALUES (new.id, new.title, new.body);
        END;
        CREATE TRIGGER documents_ad AFTER DELETE ON documents BEGIN
          INSERT INTO documents_fts(documents_fts, rowid, title, body) VALUES ('delete', old.id, old.title, old.body);
        END;
        CREATE TRIGGER documents_au AFTER UPDATE ON documents BEGIN
          INSERT INTO documents_fts(documents_fts, rowid, title, body) VALUES ('delete', old.id, old.title, old.body);
          INSERT INTO documents_fts(rowid, title, body) VALUES (new.id, new.title, new.body);
        END;
      `);
    },
  },
];

export function migrate(db: Database, steps: Migration[] = migrations): string[] {
  db.exec(
    'CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)',
  );
  const applied = new Set(
    (db.prepare('SELECT name FROM schema_migrations').all() as { name: string }[]).map((r) => r.name),
  );
  const ran: string[] = [];
  for (const step of steps) {
    if (applied.has(step.name)) continue;
    // IMMEDIATE takes the write lock first, so two processes starting at once cannot both run a step.
    db.transaction(() => {
      const again = db.prepare('SELECT 1 FROM schema_migrations WHERE name = ?').get(step.name);
      if (again) return;
      step.up(db);
      db.prepare('INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)').run(step.name, Date.now());
      ran.push(step.name);
    }).immediate();
  }
  return ran;
}
