-- Passage vectors (hybrid retrieval), when the server has pgvector. `agent db migrate`, run by the
-- tables' owner, applies this after every upgrade; safe to run again. Without pgvector (or without the
-- right to create the extension) it does nothing, and agent searches documents by keywords alone.
--
-- Vectors are kept by (model, hash of the passage's text), so an unchanged passage is never embedded
-- twice and a model used again finds its vectors. `model` names the space with its size
-- ("openai:text-embedding-3-small@512"), so vectors of two models or sizes are never compared. halfvec:
-- two bytes a dimension, half of pgvector's float vector.
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_extension WHERE extname = 'vector')
     AND EXISTS (SELECT 1 FROM pg_catalog.pg_available_extensions WHERE name = 'vector') THEN
    BEGIN
      CREATE EXTENSION vector;
    EXCEPTION WHEN insufficient_privilege THEN
      RAISE NOTICE 'pgvector is installed but this role may not create the extension: ask an administrator to run CREATE EXTENSION vector';
    END;
  END IF;
  IF EXISTS (SELECT 1 FROM pg_catalog.pg_extension WHERE extname = 'vector')
     AND pg_catalog.to_regclass('passage_vectors') IS NULL THEN
    CREATE TABLE passage_vectors (
      model text NOT NULL,
      hash bytea NOT NULL,
      vector halfvec NOT NULL,
      PRIMARY KEY (model, hash)
    );
  END IF;
END
$$;
