-- Each document's text zlib-compressed, in blocks of about 16,000 characters cut at passage starts.
ALTER TABLE documents ADD COLUMN length integer NOT NULL DEFAULT 0; -- the text's length in characters
CREATE TABLE document_blocks (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  document_id bigint NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
  start_offset integer NOT NULL,     -- where the block starts in the text (0 or a passage's start)
  data bytea NOT NULL,               -- UTF-8 raw deflate, or the UTF-8 itself when too short to compress
  deflated boolean NOT NULL,
  UNIQUE (document_id, start_offset)
);
