-- The documents of content folders. SQLite's step kept the text in documents.body until 011; here the
-- text lives only in document_blocks (011) and the title is searched through a tsvector column.
CREATE TABLE documents (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  root text NOT NULL,                -- the content folder, absolute
  slug text NOT NULL,                -- path under root without extension
  path text NOT NULL,                -- absolute file path
  title text NOT NULL,
  mtime_ms double precision NOT NULL,
  size bigint NOT NULL,
  title_tsv tsvector GENERATED ALWAYS AS (to_tsvector('english', title)) STORED,
  UNIQUE (root, slug)
);
CREATE INDEX documents_title_tsv ON documents USING gin (title_tsv);
