-- Documents as passages: each heading section (and each PDF page), split to about 1,500 characters at
-- paragraph, then sentence boundaries. A long document is sent to a model as its best passages.
CREATE TABLE passages (
  id INTEGER PRIMARY KEY,
  document_id INTEGER NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
  ordinal INTEGER NOT NULL,          -- 0, 1, 2 … in document order
  heading_path TEXT NOT NULL,        -- "Travel Policy > Hotels > London"; '' before the first heading
  start_offset INTEGER NOT NULL,     -- [start, end) in documents.body, JavaScript string indices
  end_offset INTEGER NOT NULL,
  text TEXT NOT NULL,                -- documents.body between the two offsets
  UNIQUE (document_id, ordinal)
);
CREATE VIRTUAL TABLE passages_fts USING fts5(
  heading_path, text, content='passages', content_rowid='id', tokenize='porter unicode61'
);
CREATE TRIGGER passages_ai AFTER INSERT ON passages BEGIN
  INSERT INTO passages_fts(rowid, heading_path, text) VALUES (new.id, new.heading_path, new.text);
END;
CREATE TRIGGER passages_ad AFTER DELETE ON passages BEGIN
  INSERT INTO passages_fts(passages_fts, rowid, heading_path, text)
    VALUES ('delete', old.id, old.heading_path, old.text);
END;
CREATE TRIGGER passages_au AFTER UPDATE ON passages BEGIN
  INSERT INTO passages_fts(passages_fts, rowid, heading_path, text)
    VALUES ('delete', old.id, old.heading_path, old.text);
  INSERT INTO passages_fts(rowid, heading_path, text) VALUES (new.id, new.heading_path, new.text);
END;
-- The cascade needs PRAGMA foreign_keys, which is per connection; this trigger cleans up on any connection.
CREATE TRIGGER documents_passages_ad AFTER DELETE ON documents BEGIN
  DELETE FROM passages WHERE document_id = old.id;
END;
-- Documents indexed before passages existed have none: an impossible mtime makes the next run read
-- every file again (and write its passages); until then the documents stay searchable as they were.
UPDATE documents SET mtime_ms = -1;
