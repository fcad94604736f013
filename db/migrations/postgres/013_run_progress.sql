-- Resumable research runs: an unfinished run's row and its progress, each step committed when it ends.
ALTER TABLE research_runs ADD COLUMN status text NOT NULL DEFAULT 'done'
  CHECK (status IN ('done', 'unfinished'));
CREATE TABLE run_progress (
  run_id bigint PRIMARY KEY REFERENCES research_runs (id) ON DELETE CASCADE,
  ledger_id text NOT NULL,           -- the run's id in usage_ledger
  options json NOT NULL,             -- question, settings, provider and models, folder
  holder text,                       -- host:pid:token of the process running it; NULL when none is
  heartbeat bigint NOT NULL
);
CREATE TABLE run_plans (
  run_id bigint NOT NULL REFERENCES research_runs (id) ON DELETE CASCADE,
  round integer NOT NULL,
  plan json NOT NULL,
  PRIMARY KEY (run_id, round)
);
CREATE TABLE run_searches (
  run_id bigint NOT NULL REFERENCES research_runs (id) ON DELETE CASCADE,
  query text NOT NULL,
  results json NOT NULL,
  PRIMARY KEY (run_id, query)
);
CREATE TABLE run_sources (
  run_id bigint NOT NULL REFERENCES research_runs (id) ON DELETE CASCADE,
  key text NOT NULL,                 -- doc:<slug>, or the normalised URL of the search result
  seq bigint GENERATED ALWAYS AS IDENTITY, -- the order sources were read in (SQLite's rowid)
  source json NOT NULL,
  hash text NOT NULL REFERENCES source_texts (hash),
  facts text,
  PRIMARY KEY (run_id, key)
);
CREATE INDEX run_sources_hash ON run_sources (hash);
