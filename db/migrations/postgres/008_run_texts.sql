-- The source texts a research run used, each distinct text once (by its SHA-256), zlib-compressed.
-- A text no run uses any more is deleted by the store in the transaction that deletes the run.
CREATE TABLE source_texts (
  hash text PRIMARY KEY,             -- SHA-256 of the UTF-8 text, hex
  chars integer NOT NULL,            -- its length in characters (UTF-16 code units)
  body bytea NOT NULL                -- the text, UTF-8, deflated with zlib
);
CREATE TABLE run_texts (
  run_id bigint NOT NULL REFERENCES research_runs (id) ON DELETE CASCADE,
  n integer NOT NULL,                -- the source's number in the run, as cited: [n]
  hash text NOT NULL REFERENCES source_texts (hash),
  PRIMARY KEY (run_id, n)
);
CREATE INDEX run_texts_hash ON run_texts (hash);
