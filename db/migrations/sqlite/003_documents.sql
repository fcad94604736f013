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
