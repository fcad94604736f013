-- Chat sessions: each completed exchange is appended in one transaction, so a crash loses at most the
-- turn in flight. AUTOINCREMENT keeps a deleted session's number from ever naming another conversation.
CREATE TABLE chat_sessions (
  id INTEGER PRIMARY KEY AUTOINCREMENT,  -- the number people type: agent chat --session 3
  run_id TEXT NOT NULL UNIQUE,           -- the usage_ledger run its model calls are billed under
  created_at INTEGER NOT NULL,           -- unix epoch milliseconds
  updated_at INTEGER NOT NULL,           -- when the latest exchange was saved
  provider TEXT NOT NULL,                -- of the latest exchange
  model TEXT NOT NULL,
  first_message TEXT NOT NULL
);
CREATE INDEX chat_sessions_updated ON chat_sessions (updated_at);
CREATE TABLE chat_messages (
  session_id INTEGER NOT NULL REFERENCES chat_sessions (id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,                  -- order within the session, from 0
  exchange INTEGER NOT NULL,             -- 1 for the first user message and its answer, 2 for the next ...
  provider TEXT NOT NULL,                -- the provider and model the chat used for this exchange
  model TEXT NOT NULL,
  message TEXT NOT NULL,                 -- the Message as JSON
  PRIMARY KEY (session_id, seq)
);
-- A session's cost is the sum of its run's ledger rows.
CREATE INDEX IF NOT EXISTS usage_ledger_run ON usage_ledger (run_id);
