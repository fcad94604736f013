-- Who created each row: AGENT_USER, else the operating-system user name. Rows kept before this step
-- have none (NULL): the ledger groups them as "unknown", and their chat sessions are everyone's.
ALTER TABLE usage_ledger ADD COLUMN created_by TEXT;
ALTER TABLE notes ADD COLUMN created_by TEXT;
ALTER TABLE research_runs ADD COLUMN created_by TEXT;
ALTER TABLE chat_sessions ADD COLUMN created_by TEXT;
CREATE INDEX chat_sessions_created_by ON chat_sessions (created_by, updated_at);
