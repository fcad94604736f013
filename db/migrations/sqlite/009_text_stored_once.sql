-- Each document's text is stored once, in documents.body. Passages become spans of it (the passages view
-- gives their text), and the full-text indexes hold no copy of the text: documents_fts indexes titles,
-- reading them from documents; passages_fts is contentless (deleting a row needs only its rowid) and
-- finds documents by their words too. Before this, the text was stored three times (2.8 times its size).
DROP TRIGGER IF EXISTS documents_ai;
DROP TRIGGER IF EXISTS documents_ad;
DROP TRIGGER IF EXISTS documents_au;
DROP TRIGGER IF EXISTS documents_passages_ad;
DROP TABLE IF EXISTS documents_fts;
DROP TABLE IF EXISTS passages_fts;
DROP TABLE IF EXISTS passages;

CREATE VIRTUAL TABLE documents_fts USING fts5(
  title, content='documents', content_rowid='id', tokenize='porter unicode61'
);
CREATE TRIGGER documents_ai AFTER INSERT ON documents BEGIN
  INSERT INTO documents_fts(rowid, title) VALUES (new.id, new.title);
END;
CREATE TRIGGER documents_ad AFTER DELETE ON documents BEGIN
  INSERT INTO documents_fts(documents_fts, rowid, title) VALUES ('delete', old.id, old.title);
END;
CREATE TRIGGER documents_au AFTER UPDATE OF title ON documents BEGIN
  INSERT INTO documents_fts(documents_fts, rowid, title) VALUES ('delete', old.id, old.title);
  INSERT INTO documents_fts(rowid, title) VALUES (new.id, new.title);
END;
INSERT INTO documents_fts(documents_fts) VALUES ('rebuild');

-- A document's passages are written with consecutive ids (searches of one document use the range).
CREATE TABLE passage_spans (
  id INTEGER PRIMARY KEY,
  document_id INTEGER NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
  ordinal INTEGER NOT NULL,          -- 0, 1, 2 … in document order
  heading_path TEXT NOT NULL,        -- "Travel Policy > Hotels > London"; '' before the first heading
  start_offset INTEGER NOT NULL,     -- [start, end) in documents.body, in characters (code points)
  end_offset INTEGER NOT NULL,
  UNIQUE (document_id, ordinal)
);
-- Written by the indexer with the passage's text, in the same transaction as its span. The text comes
-- first: FTS5 marks every term found in a later column, which made the index a third bigger.
CREATE VIRTUAL TABLE passages_fts USING fts5(
  text, heading_path, content='', contentless_delete=1, tokenize='porter unicode61'
);
CREATE TRIGGER passage_spans_ad AFTER DELETE ON passage_spans BEGIN
  DELETE FROM passages_fts WHERE rowid = old.id;
END;
-- The cascade needs PRAGMA foreign_keys, which is per connection; this trigger cleans up on any connection.
CREATE TRIGGER documents_passages_ad AFTER DELETE ON documents BEGIN
  DELETE FROM passage_spans WHERE document_id = old.id;
END;
CREATE VIEW passages AS
  SELECT p.id, p.document_id, p.ordinal, p.heading_path, p.start_offset, p.end_offset,
    substr(d.body, p.start_offset + 1, p.end_offset - p.start_offset) AS text
  FROM passage_spans p JOIN documents d ON d.id = p.document_id;

-- Which process is indexing a content folder, so that others wait for it instead of doing the same work,
-- and when a folder was last brought up to date (a process that waited for that needs no walk of its own).
CREATE TABLE index_leases (
  root TEXT PRIMARY KEY,
  holder TEXT NOT NULL,              -- host:pid:token of the indexing process
  heartbeat INTEGER NOT NULL         -- unix epoch milliseconds, renewed while it works
);
CREATE TABLE indexed_roots (
  root TEXT PRIMARY KEY,
  walked_at INTEGER NOT NULL,        -- when the walk of the last complete refresh began
  skipped TEXT NOT NULL DEFAULT '[]' -- that refresh's skipped files, JSON [{path, reason}]
);

-- Passages are made again, with offsets in characters: the next run reads every file again.
UPDATE documents SET mtime_ms = -1;
