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
