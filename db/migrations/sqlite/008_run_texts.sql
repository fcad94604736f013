-- The source texts a research run used, so its evidence can be shown again after a page changed or a
-- file was deleted. Each distinct text is stored once (by its SHA-256), zlib-compressed; runs point at it.
CREATE TABLE source_texts (
  hash TEXT PRIMARY KEY,          -- SHA-256 of the UTF-8 text, hex
  chars INTEGER NOT NULL,         -- its length in characters (UTF-16 code units)
  body BLOB NOT NULL              -- the text, UTF-8, deflated with zlib
);
CREATE TABLE run_texts (
  run_id INTEGER NOT NULL REFERENCES research_runs(id) ON DELETE CASCADE,
  n INTEGER NOT NULL,             -- the source's number in the run, as cited: [n]
  hash TEXT NOT NULL REFERENCES source_texts(hash),
  PRIMARY KEY (run_id, n)
);
CREATE INDEX run_texts_hash ON run_texts (hash);
-- A deleted run takes its links with it, and a text no run uses any more goes too.
CREATE TRIGGER research_runs_texts_ad AFTER DELETE ON research_runs BEGIN
  DELETE FROM run_texts WHERE run_id = old.id;
  DELETE FROM source_texts WHERE hash NOT IN (SELECT hash FROM run_texts);
END;
