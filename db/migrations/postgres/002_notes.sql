-- Notes, searchable by their words: the tsvector is computed by the server from the row (title weighs
-- most), and a GIN index finds the rows (FTS5's notes_fts on SQLite).
CREATE TABLE notes (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  content text NOT NULL CHECK (length(btrim(content)) > 0),
  title text,
  tags jsonb NOT NULL DEFAULT '[]',  -- array of strings
  created_at bigint NOT NULL,        -- unix epoch milliseconds
  tsv tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector('english', coalesce(title, '')), 'A')
      || setweight(to_tsvector('english', content), 'B')
      || setweight(jsonb_to_tsvector('english', tags, '["string"]'), 'B')
  ) STORED
);
CREATE INDEX notes_tsv ON notes USING gin (tsv);
CREATE INDEX notes_created ON notes (created_at);
