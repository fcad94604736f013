-- Every research run that answered. `result` is json, not jsonb: it is printed again exactly as given.
CREATE TABLE research_runs (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, -- the number people type: agent reports --show 3
  created_at bigint NOT NULL,            -- unix epoch milliseconds
  question text NOT NULL,
  mode text NOT NULL,                    -- 'model' or 'extractive'
  answer text NOT NULL,                  -- the answer or the report, as shown
  cost_usd double precision,             -- NULL when a call had no known price
  result json NOT NULL,                  -- the object `agent research --json` prints
  tsv tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector('english', question), 'A') || setweight(to_tsvector('english', answer), 'B')
  ) STORED
);
CREATE INDEX research_runs_created ON research_runs (created_at);
CREATE INDEX research_runs_tsv ON research_runs USING gin (tsv);
