-- Chat sessions: each completed exchange is appended in one transaction. An identity column never hands
-- a deleted session's number to another conversation (SQLite's AUTOINCREMENT).
CREATE TABLE chat_sessions (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, -- the number people type: agent chat --session 3
  run_id text NOT NULL UNIQUE,           -- the usage_ledger run its model calls are billed under
  created_at bigint NOT NULL,            -- unix epoch milliseconds
  updated_at bigint NOT NULL,            -- when the latest exchange was saved
  provider text NOT NULL,                -- of the latest exchange
  model text NOT NULL,
  first_message text NOT NULL
);
CREATE INDEX chat_sessions_updated ON chat_sessions (updated_at);
CREATE TABLE chat_messages (
  session_id bigint NOT NULL REFERENCES chat_sessions (id) ON DELETE CASCADE,
  seq integer NOT NULL,                  -- order within the session, from 0
  exchange integer NOT NULL,             -- 1 for the first user message and its answer, 2 for the next ...
  provider text NOT NULL,
  model text NOT NULL,
  message json NOT NULL,                 -- the Message, kept as written
  PRIMARY KEY (session_id, seq)
);
-- A session's cost is the sum of its run's ledger rows.
CREATE INDEX usage_ledger_run ON usage_ledger (run_id);
