-- Passage vectors for hybrid retrieval (BM25 fused with embeddings). Each passage records the hash of the
-- text it is embedded as (heading path and text); vectors are kept by (model, hash), so an unchanged
-- passage is never embedded twice, and vectors of a model not in use stay for when it is used again.
-- `model` names the vector space with its size ("openai:text-embedding-3-small@512"): vectors of two
-- models or two sizes are never compared. See src/store/vectors.ts for the compact forms:
--   passage_vectors.vector  int8 (sqlite-vec's vec_int8) of the unit vector folded to at most 512
--                           dimensions, what candidates are ranked by;
--   vector_chunks           the vectors' sign bits, packed by the batch they were embedded in (with
--                           their hashes, 16 bytes each, in the same order), scanned to find candidates.
ALTER TABLE passage_spans ADD COLUMN hash BLOB;
CREATE INDEX passage_spans_hash ON passage_spans (hash);
CREATE TABLE passage_vectors (
  id INTEGER PRIMARY KEY,
  model TEXT NOT NULL,
  hash BLOB NOT NULL,
  vector BLOB NOT NULL,
  UNIQUE (model, hash)
);
CREATE TABLE vector_chunks (
  id INTEGER PRIMARY KEY,
  model TEXT NOT NULL,
  hashes BLOB NOT NULL,
  bits BLOB NOT NULL
);
CREATE INDEX vector_chunks_model ON vector_chunks (model);
-- Every document is read again on the next run, so that each passage has its hash.
UPDATE documents SET mtime_ms = -1;
DELETE FROM indexed_roots;
