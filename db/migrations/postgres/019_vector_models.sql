-- SQLite's step 019 keeps model names once and packs vector ids into chunks, which it scans in memory.
-- PostgreSQL's vector tables need pgvector, so db/vectors.sql makes them and brings them up to date
-- (where the server has it) after every migrate: nothing changes here. The step exists so that both
-- databases have the same numbered steps.
SELECT 1;
