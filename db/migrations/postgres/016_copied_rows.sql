-- PostgreSQL only: which rows `agent db copy` has brought from SQLite files, by a key made from the
-- source row (its kind, its id in the file and every column): a rerun skips exactly those, and two
-- distinct rows that share a millisecond are both copied.
CREATE TABLE copied_rows (
  kind text NOT NULL,                -- ledger, note or report
  source_key text NOT NULL,          -- SHA-256 of the source row, hex
  PRIMARY KEY (kind, source_key)
);
