-- PostgreSQL version of db/migrations/001_usage_ledger.sql: one row per model call.
CREATE TABLE usage_ledger (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  ts bigint NOT NULL,                -- unix epoch milliseconds
  command text NOT NULL,             -- chat | research
  run_id text NOT NULL,              -- chat session or research run
  step text NOT NULL,                -- chat | plan | extract | write ...
  provider text NOT NULL,
  model text NOT NULL,
  input_tokens bigint NOT NULL,      -- uncached input only
  cache_read_tokens bigint NOT NULL,
  cache_write_tokens bigint NOT NULL,
  output_tokens bigint NOT NULL,     -- includes reasoning
  reasoning_tokens bigint NOT NULL,  -- part of output, for display
  price_input double precision,      -- USD per million tokens, as used for this row
  price_output double precision,
  price_cache_read double precision,
  price_cache_write double precision,
  price_source text,
  cost_usd double precision          -- NULL when the model has no known price
);
CREATE INDEX usage_ledger_ts ON usage_ledger (ts);
