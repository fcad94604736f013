-- Passages as spans of their document's text. The text itself is stored once (document_blocks, 011):
-- each passage keeps only a tsvector made from its text when it is written (heading words weight A,
-- text words B, so a heading word counts twice), searched through a GIN index.
CREATE TABLE passage_spans (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  document_id bigint NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
  ordinal integer NOT NULL,          -- 0, 1, 2 … in document order
  heading_path text NOT NULL,        -- "Travel Policy > Hotels > London"; '' before the first heading
  start_offset integer NOT NULL,     -- [start, end) in the document's text, JavaScript string indices
  end_offset integer NOT NULL,
  tsv tsvector NOT NULL,
  UNIQUE (document_id, ordinal)
);
CREATE INDEX passage_spans_tsv ON passage_spans USING gin (tsv);

-- Which process is indexing a content folder, and when a folder was last brought up to date.
CREATE TABLE index_leases (
  root text PRIMARY KEY,
  holder text NOT NULL,              -- host:pid:token of the indexing process
  heartbeat bigint NOT NULL          -- unix epoch milliseconds, renewed while it works
);
CREATE TABLE indexed_roots (
  root text PRIMARY KEY,
  walked_at bigint NOT NULL,         -- when the walk of the last complete refresh began
  skipped json NOT NULL DEFAULT '[]' -- that refresh's skipped files, [{path, reason}]
);
