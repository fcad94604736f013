CREATE TABLE usage_ledger (
  id INTEGER PRIMARY KEY,
  ts INTEGER NOT NULL,               -- unix epoch milliseconds
  command TEXT NOT NULL,             -- chat | research
  run_id TEXT NOT NULL,              -- chat session or research run
  step TEXT NOT NULL,                -- chat | plan | extract | write ...
  provider TEXT NOT NULL,
  model TEXT NOT NULL,
  input_tokens INTEGER NOT NULL,     -- uncached input only
  cache_read_tokens INTEGER NOT NULL,
  cache_write_tokens INTEGER NOT NULL,
  output_tokens INTEGER NOT NULL,    -- includes reasoning
  reasoning_tokens INTEGER NOT NULL, -- part of output, for display
  price_input REAL,                  -- USD per million tokens, as used for this row
  price_output REAL,
  price_cache_read REAL,
  price_cache_write REAL,
  price_source TEXT,
  cost_usd REAL                      -- NULL when the model has no known price
);
CREATE INDEX usage_ledger_ts ON usage_ledger (ts);
