-- Passage vectors (hybrid retrieval), when the server has pgvector. `agent db migrate`, run by the
-- tables' owner, applies this after every upgrade; safe to run again. Without pgvector (or without the
-- right to create the extension) it does nothing, and agent searches documents by keywords alone.
--
-- Vectors are kept by (model, hash of the passage's text), so an unchanged passage is never embedded
-- twice and a model used again finds its vectors. `model` names the space with its size
-- ("openai:text-embedding-3-small@512"), so vectors of two models or sizes are never compared. As in
-- SQLite (src/store/vectors.ts), every vector is folded to 512 dimensions (dimension i added, with a
-- fixed sign, into i mod 512; a smaller model's padded with zeros, which changes no cosine):
--   passage_vector_signs  its signs (binary_quantize), 64 bytes, scanned by Hamming distance for
--                         candidates: a table of its own, so that the scan reads 150-byte rows;
--   passage_vectors       the vector's int8 components (as SQLite keeps them), 512 bytes, read only for
--                         the candidates, which agent ranks by cosine (pgvector has no int8 type; a
--                         halfvec(512), as kept before, took twice the room and twice the reads).
-- The two are written and deleted together, by one statement each time (no foreign key: its check
-- would lock a vector's row for every sign written).
-- No approximate index: an HNSW graph costs every insert a search of the graph, more than the scan it
-- would save at the sizes of a team's documents.
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
  IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_extension WHERE extname = 'vector') THEN
    RETURN;
  END IF;
  -- Development builds kept each model's vectors at its own size, without signs: set aside, and folded
  -- into the new tables below rather than paid for again.
  IF pg_catalog.to_regclass('passage_vectors') IS NOT NULL
     AND pg_catalog.to_regclass('passage_vector_signs') IS NULL THEN
    ALTER TABLE passage_vectors RENAME TO passage_vectors_unsized;
    ALTER INDEX passage_vectors_pkey RENAME TO passage_vectors_unsized_pkey;
  END IF;
  IF pg_catalog.to_regclass('passage_vectors') IS NULL THEN
    CREATE TABLE passage_vectors (
      model text NOT NULL,
      hash bytea NOT NULL,
      vector halfvec(512) NOT NULL,
      PRIMARY KEY (model, hash)
    );
    CREATE TABLE passage_vector_signs (
      model text NOT NULL,
      hash bytea NOT NULL,
      bits bit(512) NOT NULL,
      PRIMARY KEY (model, hash)
    );
  END IF;
  IF pg_catalog.to_regclass('passage_vectors_unsized') IS NOT NULL THEN
    -- Folded as foldInto() folds: the sign of dimension i (0-based) is bit 0 xor bit 15 of
    -- (i + 1) * 2654435761 mod 2^32, + for 1; a model of 512 dimensions or fewer is not folded.
    INSERT INTO passage_vectors (model, hash, vector)
    SELECT u.model, u.hash, f.vector
    FROM passage_vectors_unsized u
    CROSS JOIN LATERAL (
      SELECT r.arr, pg_catalog.cardinality(r.arr) AS n FROM (SELECT u.vector::real[] AS arr) AS r
    ) AS a
    CROSS JOIN LATERAL (
      SELECT pg_catalog.array_agg(coalesce(s.x, 0) ORDER BY g.j) AS sums
      FROM pg_catalog.generate_series(0, 511) AS g (j)
      LEFT JOIN (
        SELECT (e.o - 1) % 512 AS j,
          sum(CASE WHEN a.n <= 512 OR ((e.h # (e.h >> 15)) & 1) = 1 THEN e.x ELSE -e.x END) AS x
        FROM (
          SELECT v.x, v.o, (v.o * 2654435761) % 4294967296 AS h
          FROM pg_catalog.unnest(a.arr) WITH ORDINALITY AS v (x, o)
        ) AS e
        GROUP BY 1
      ) AS s ON s.j = g.j
    ) AS folded
    -- Then made int8 as compact() makes it: times 127 over the folded vector's length, rounded.
    CROSS JOIN LATERAL (
      SELECT pg_catalog.array_agg(
          pg_catalog.round(c.x * 127 / coalesce(nullif(pg_catalog.sqrt(
            (SELECT sum(y * y) FROM pg_catalog.unnest(folded.sums) AS t (y))), 0), 1))
          ORDER BY c.o)::real[]::halfvec(512) AS vector
      FROM pg_catalog.unnest(folded.sums) WITH ORDINALITY AS c (x, o)
    ) AS f
    ON CONFLICT DO NOTHING;
    INSERT INTO passage_vector_signs (model, hash, bits)
    SELECT model, hash, binary_quantize(vector) FROM passage_vectors ON CONFLICT DO NOTHING;
    DROP TABLE passage_vectors_unsized;
  END IF;
  -- Vectors kept as halfvec(512) (a new table too, made as such above) become their int8 bytes.
  IF EXISTS (
    SELECT 1 FROM pg_catalog.pg_attribute
    WHERE attrelid = 'passage_vectors'::pg_catalog.regclass AND attname = 'vector'
      AND atttypid = 'halfvec'::pg_catalog.regtype
  ) THEN
    CREATE FUNCTION pg_temp.agent_int8_bytes(v real[]) RETURNS bytea LANGUAGE sql IMMUTABLE AS $f$
      SELECT pg_catalog.decode(pg_catalog.string_agg(
          pg_catalog.lpad(pg_catalog.to_hex(x::int & 255), 2, '0'), '' ORDER BY o), 'hex')
      FROM pg_catalog.unnest(v) WITH ORDINALITY AS t (x, o)
    $f$;
    ALTER TABLE passage_vectors ALTER COLUMN vector TYPE bytea
      USING pg_temp.agent_int8_bytes(vector::real[]);
    DROP FUNCTION pg_temp.agent_int8_bytes(real[]);
  END IF;
END
$$;
