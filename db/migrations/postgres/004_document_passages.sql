-- No-op on PostgreSQL: SQLite's first passages table (a copy of each passage's text) was replaced by
-- passage_spans in 009, which is where PostgreSQL's passages begin.
SELECT 1;
