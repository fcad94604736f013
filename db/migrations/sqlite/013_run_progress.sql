-- Resumable research runs. A model run gets its row (and its number) when its plan is made, marked
-- 'unfinished', and records its progress as it goes; when it answers, the row is completed ('done') and
-- the progress rows are dropped. `agent research --resume <id>` continues an unfinished run from them.
ALTER TABLE research_runs ADD COLUMN status TEXT NOT NULL DEFAULT 'done'
  CHECK (status IN ('done', 'unfinished'));

-- What continuing the run needs, and which process is running it now.
CREATE TABLE run_progress (
  run_id INTEGER PRIMARY KEY REFERENCES research_runs(id) ON DELETE CASCADE,
  ledger_id TEXT NOT NULL,              -- the run's id in usage_ledger: every attempt's calls share it
  options TEXT NOT NULL CHECK (json_valid(options)),  -- question, settings, provider and models, folder
  holder TEXT,                          -- host:pid:token of the process running it; NULL when none is
  heartbeat INTEGER NOT NULL            -- unix epoch milliseconds, renewed while the holder works
);
-- Each round's plan: round 1 is the plan (after review), later rounds the follow-ups' answers.
CREATE TABLE run_plans (
  run_id INTEGER NOT NULL REFERENCES research_runs(id) ON DELETE CASCADE,
  round INTEGER NOT NULL,
  plan TEXT NOT NULL CHECK (json_valid(plan)),        -- {"documents", "searches", "gaps"?}
  PRIMARY KEY (run_id, round)
);
-- Each web search's results (inside the web filters), so a resumed run reads the same pages.
CREATE TABLE run_searches (
  run_id INTEGER NOT NULL REFERENCES research_runs(id) ON DELETE CASCADE,
  query TEXT NOT NULL,
  results TEXT NOT NULL CHECK (json_valid(results)),
  PRIMARY KEY (run_id, query)
);
-- Each source read, the moment it was read; its facts once extracted (NULL before).
CREATE TABLE run_sources (
  run_id INTEGER NOT NULL REFERENCES research_runs(id) ON DELETE CASCADE,
  key TEXT NOT NULL,                    -- doc:<slug>, or the normalised URL of the search result
  source TEXT NOT NULL CHECK (json_valid(source)),    -- kind, title, location, slug, status, readAt
  hash TEXT NOT NULL REFERENCES source_texts(hash),  -- its text, stored once
  facts TEXT,
  PRIMARY KEY (run_id, key)
);
CREATE INDEX run_sources_hash ON run_sources (hash);

-- The cascades need PRAGMA foreign_keys, which is per connection: these triggers clean up on any.
CREATE TRIGGER research_runs_progress_ad AFTER DELETE ON research_runs BEGIN
  DELETE FROM run_progress WHERE run_id = old.id;
  DELETE FROM run_plans WHERE run_id = old.id;
  DELETE FROM run_searches WHERE run_id = old.id;
  DELETE FROM run_sources WHERE run_id = old.id;
END;
-- A text is kept while a saved run or a run's progress uses it.
DROP TRIGGER IF EXISTS research_runs_texts_ad;
CREATE TRIGGER research_runs_texts_ad AFTER DELETE ON research_runs BEGIN
  DELETE FROM run_texts WHERE run_id = old.id;
  DELETE FROM source_texts WHERE hash NOT IN (SELECT hash FROM run_texts)
    AND hash NOT IN (SELECT hash FROM run_sources);
END;
CREATE TRIGGER run_sources_ad AFTER DELETE ON run_sources BEGIN
  DELETE FROM source_texts WHERE hash = old.hash
    AND NOT EXISTS (SELECT 1 FROM run_texts WHERE hash = old.hash)
    AND NOT EXISTS (SELECT 1 FROM run_sources WHERE hash = old.hash);
END;
