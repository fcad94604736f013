-- Passage vectors in less space (see src/store/vectors.ts): a model's name is kept once, in
-- vector_models, and rows name it by number; vector_chunks name their vectors by row id (4 bytes, not a
-- 16-byte hash) and hold the signs of the stored int8 vector (512 bits at most, not one a dimension of
-- the model). The vectors themselves are kept as they are: nothing is embedded (paid for) again. The
-- chunks are made again from them the first time a process uses vectors (src/store/sqlite/vectors.ts).
CREATE TABLE vector_models (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE            -- the space: model and dimensions, "openai:text-embedding-3-small@1536"
);
INSERT INTO vector_models (name) SELECT DISTINCT model FROM passage_vectors ORDER BY model;
CREATE TABLE vectors_new (
  id INTEGER PRIMARY KEY,
  model_id INTEGER NOT NULL,
  hash BLOB NOT NULL,
  vector BLOB NOT NULL,
  UNIQUE (model_id, hash)
);
INSERT INTO vectors_new (id, model_id, hash, vector)
  SELECT v.id, m.id, v.hash, v.vector FROM passage_vectors v JOIN vector_models m ON m.name = v.model
  ORDER BY v.id;
DROP TABLE passage_vectors;
ALTER TABLE vectors_new RENAME TO passage_vectors;
DROP TABLE vector_chunks;
CREATE TABLE vector_chunks (
  id INTEGER PRIMARY KEY,
  model_id INTEGER NOT NULL,
  ids BLOB NOT NULL,                   -- passage_vectors ids, uint32 little-endian, in the bits' order
  bits BLOB NOT NULL                   -- each vector's sign bits, bitBytes(dimensions) bytes each
);
CREATE INDEX vector_chunks_model ON vector_chunks (model_id);
