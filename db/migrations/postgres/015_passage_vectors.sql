-- Hybrid retrieval: each passage records the hash of the text it is embedded as (heading path and
-- text), which keys its vectors. The vectors themselves need pgvector: their table is made by
-- db/vectors.sql, which `agent db migrate` applies whenever the server has the extension (so installing
-- pgvector later and running `agent db migrate` again is enough). Without it, search is BM25 as before.
ALTER TABLE passage_spans ADD COLUMN hash bytea;
CREATE INDEX passage_spans_hash ON passage_spans (hash);
-- Every document is read again on the next run, so that each passage has its hash.
UPDATE documents SET mtime_ms = -1;
DELETE FROM indexed_roots;
