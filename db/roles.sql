-- The team's roles, made once per server by a role with CREATEROLE (the admin, agent_admin in the
-- README, or a superuser): psql "$ADMIN_URL" -f db/roles.sql. Safe to run again.
--
--   agent_member  what each person's login role is IN: reads the team's rows, writes only its own, sees
--                 only its own chats (db/grants.sql, applied by `agent db migrate`).
--   agent_shared  for a login role several people share (pgbouncer forcing one user, a service
--                 account): IN ROLE agent_member, but rows record AGENT_USER's label instead of the
--                 role, and chats are shared among its users (the server cannot tell them apart).
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'agent_member') THEN
    CREATE ROLE agent_member NOLOGIN;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'agent_shared') THEN
    CREATE ROLE agent_shared NOLOGIN IN ROLE agent_member;
  END IF;
END
$$;
-- Members create nothing in the app's schema: a function or table of theirs there could stand in for
-- one agent uses (PostgreSQL 14 and older let everyone CREATE in public). Needs the schema's owner:
-- the database's owner on PostgreSQL 15 and newer.
REVOKE CREATE ON SCHEMA public FROM PUBLIC;
