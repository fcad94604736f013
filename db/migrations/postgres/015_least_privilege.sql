-- PostgreSQL only: a team where no member can rewrite another's rows (db/roles.sql makes the roles,
-- db/grants.sql, applied by `agent db migrate`, gives members exactly what agent needs).
--
-- Authorship is the connecting role (session_user: SET ROLE cannot change it). Rows written before this
-- step have no owner_role and are changed by the tables' owner only.
ALTER TABLE usage_ledger ADD COLUMN owner_role text;
ALTER TABLE notes ADD COLUMN owner_role text;
ALTER TABLE research_runs ADD COLUMN owner_role text;
ALTER TABLE usage_ledger ALTER COLUMN owner_role SET DEFAULT session_user;
ALTER TABLE notes ALTER COLUMN owner_role SET DEFAULT session_user;
ALTER TABLE research_runs ALTER COLUMN owner_role SET DEFAULT session_user;
ALTER TABLE chat_sessions ALTER COLUMN owner_role SET DEFAULT session_user;
ALTER TABLE chat_messages ALTER COLUMN owner_role SET DEFAULT session_user;

-- created_by is the person's role where each person has one (a direct member of agent_member); on a
-- role several people share (a member of agent_shared), or for the owner, it is AGENT_USER's label,
-- cut to 64 characters so one person cannot make `agent cost --by user` unreadable for all. Members
-- may update no author column (db/grants.sql grants UPDATE on other columns only).
CREATE FUNCTION agent_author() RETURNS trigger LANGUAGE plpgsql SET search_path = pg_catalog AS $$
BEGIN
  IF EXISTS (
    SELECT 1 FROM pg_catalog.pg_auth_members m
      JOIN pg_catalog.pg_roles g ON g.oid = m.roleid
      JOIN pg_catalog.pg_roles u ON u.oid = m.member
    WHERE g.rolname = 'agent_member' AND u.rolname = session_user
  ) THEN
    NEW.created_by := session_user;
  ELSE
    NEW.created_by := pg_catalog.left(NEW.created_by, 64);
  END IF;
  RETURN NEW;
END
$$;
CREATE TRIGGER usage_ledger_author BEFORE INSERT ON usage_ledger
  FOR EACH ROW EXECUTE FUNCTION agent_author();
CREATE TRIGGER notes_author BEFORE INSERT ON notes FOR EACH ROW EXECUTE FUNCTION agent_author();
CREATE TRIGGER research_runs_author BEFORE INSERT ON research_runs
  FOR EACH ROW EXECUTE FUNCTION agent_author();
CREATE TRIGGER chat_sessions_author BEFORE INSERT ON chat_sessions
  FOR EACH ROW EXECUTE FUNCTION agent_author();

-- Chats: private to their role, the owner included (FORCE): only a superuser or a BYPASSRLS role sees
-- them all, and `agent db status` says so. A message goes only into one's own session: a foreign key
-- ignores row-level security, so without this check a member could write into another's session.
DROP POLICY chat_sessions_owner ON chat_sessions;
DROP POLICY chat_messages_owner ON chat_messages;
CREATE POLICY own ON chat_sessions USING (owner_role = session_user) WITH CHECK (owner_role = session_user);
CREATE POLICY own ON chat_messages USING (owner_role = session_user)
  WITH CHECK (
    owner_role = session_user
    AND EXISTS (SELECT 1 FROM chat_sessions s WHERE s.id = session_id AND s.owner_role = session_user)
  );
ALTER TABLE chat_sessions FORCE ROW LEVEL SECURITY;
ALTER TABLE chat_messages FORCE ROW LEVEL SECURITY;

-- The team's tables: everyone reads; a row is inserted only as oneself, and changed or deleted only by
-- its author. The ledger has no UPDATE or DELETE policy at all (and members no such grant).
ALTER TABLE usage_ledger ENABLE ROW LEVEL SECURITY;
CREATE POLICY read ON usage_ledger FOR SELECT USING (true);
CREATE POLICY append ON usage_ledger FOR INSERT WITH CHECK (owner_role = session_user);

ALTER TABLE notes ENABLE ROW LEVEL SECURITY;
CREATE POLICY read ON notes FOR SELECT USING (true);
CREATE POLICY add ON notes FOR INSERT WITH CHECK (owner_role = session_user);
CREATE POLICY remove ON notes FOR DELETE USING (owner_role = session_user);

ALTER TABLE research_runs ENABLE ROW LEVEL SECURITY;
CREATE POLICY read ON research_runs FOR SELECT USING (true);
CREATE POLICY add ON research_runs FOR INSERT WITH CHECK (owner_role = session_user);
CREATE POLICY change ON research_runs FOR UPDATE USING (owner_role = session_user)
  WITH CHECK (owner_role = session_user);
CREATE POLICY remove ON research_runs FOR DELETE USING (owner_role = session_user);

-- A run's texts and progress: read by all, written only by the run's author. (Deleting a run cascades
-- to them as the owner would: referential actions are not subject to row-level security.)
CREATE FUNCTION agent_owns_run(run bigint) RETURNS boolean LANGUAGE sql STABLE
  SET search_path = pg_catalog AS $$
  SELECT EXISTS (SELECT 1 FROM public.research_runs r WHERE r.id = run AND r.owner_role = session_user)
$$;
DO $$
DECLARE t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['run_texts', 'run_progress', 'run_plans', 'run_searches', 'run_sources'] LOOP
    EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
    EXECUTE format('CREATE POLICY read ON %I FOR SELECT USING (true)', t);
    EXECUTE format('CREATE POLICY add ON %I FOR INSERT WITH CHECK (agent_owns_run(run_id))', t);
    EXECUTE format(
      'CREATE POLICY change ON %I FOR UPDATE USING (agent_owns_run(run_id)) WITH CHECK (agent_owns_run(run_id))', t);
    EXECUTE format('CREATE POLICY remove ON %I FOR DELETE USING (agent_owns_run(run_id))', t);
  END LOOP;
END
$$;
