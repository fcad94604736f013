-- The document index at about the text's size: each document's text is kept zlib-compressed, in blocks
-- of about 16,000 characters cut at passage starts (a passage is read by inflating one block, a document
-- by inflating its few), instead of as plain text in documents.body. The full-text indexes are as in 009.
-- Passage offsets (passage_spans.start_offset, end_offset) become JavaScript string indices: the text is
-- cut in JavaScript now, no longer by SQLite's substr.
-- Every document is read again on the next run (mtime -1 marks it changed); its title and place stay.
DROP VIEW IF EXISTS passages;
DROP TRIGGER IF EXISTS passage_spans_ad;
DELETE FROM passage_spans;
INSERT INTO passages_fts(passages_fts) VALUES ('delete-all');
CREATE TRIGGER passage_spans_ad AFTER DELETE ON passage_spans BEGIN
  DELETE FROM passages_fts WHERE rowid = old.id;
END;
ALTER TABLE documents DROP COLUMN body;
-- The text's length in characters: a document that fits a source's budget is read whole, a longer one
-- only for the blocks of the passages sent.
ALTER TABLE documents ADD COLUMN length INTEGER NOT NULL DEFAULT 0;
UPDATE documents SET mtime_ms = -1;
DELETE FROM indexed_roots;

CREATE TABLE document_blocks (
  id INTEGER PRIMARY KEY,
  document_id INTEGER NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
  start_offset INTEGER NOT NULL,     -- where the block starts in the text (0 or a passage's start)
  data BLOB NOT NULL,                -- the text up to the next block's start: UTF-8 raw deflate (BLOB),
                                     -- or the text itself (TEXT) when it is too short to compress
  UNIQUE (document_id, start_offset)
);
-- The cascades need PRAGMA foreign_keys, which is per connection; this trigger cleans up on any connection.
DROP TRIGGER IF EXISTS documents_passages_ad;
CREATE TRIGGER documents_passages_ad AFTER DELETE ON documents BEGIN
  DELETE FROM passage_spans WHERE document_id = old.id;
  DELETE FROM document_blocks WHERE document_id = old.id;
END;
