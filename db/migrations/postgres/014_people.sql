-- People: who created each row (AGENT_USER, else the operating-system user; NULL for older rows).
ALTER TABLE usage_ledger ADD COLUMN created_by text;
ALTER TABLE notes ADD COLUMN created_by text;
ALTER TABLE research_runs ADD COLUMN created_by text;
ALTER TABLE chat_sessions ADD COLUMN created_by text;

-- Chats are private to the server role that wrote them: with one role per person, the server itself
-- keeps a person's chats from the others. The tables' owner (who ran the migrations) is exempt, as
-- PostgreSQL exempts owners; a team that shares one role sees each other's chats through the server,
-- and agent shows only your own unless asked for all.
ALTER TABLE chat_sessions ADD COLUMN owner_role text NOT NULL DEFAULT current_user;
ALTER TABLE chat_messages ADD COLUMN owner_role text NOT NULL DEFAULT current_user;
ALTER TABLE chat_sessions ENABLE ROW LEVEL SECURITY;
ALTER TABLE chat_messages ENABLE ROW LEVEL SECURITY;
CREATE POLICY chat_sessions_owner ON chat_sessions USING (owner_role = current_user);
CREATE POLICY chat_messages_owner ON chat_messages USING (owner_role = current_user);
