-- SQLite's step 019 keeps model names once and packs vector ids into chunks (its vectors are scanned in
-- memory). PostgreSQL's vectors are searched by pgvector's index instead and keep their table, which
-- db/vectors.sql makes and brings up to date where the server has pgvector: nothing changes here. The
-- step exists so that both databases have the same numbered steps.
SELECT 1;
