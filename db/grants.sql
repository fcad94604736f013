-- What a member (the role agent_member and the roles in it) may do: exactly what agent needs, nothing
-- more. `agent db migrate`, run by the tables' owner, applies this after every upgrade when the role
-- agent_member exists (db/roles.sql makes it). Safe to run again: it first takes back what it gives.
REVOKE ALL ON ALL TABLES IN SCHEMA public FROM agent_member;
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA public FROM PUBLIC;
GRANT USAGE ON SCHEMA public TO agent_member;
GRANT EXECUTE ON FUNCTION agent_author(), agent_owns_run(bigint) TO agent_member;

-- The schema's version: read it, never write it (a row there makes every agent refuse the database).
GRANT SELECT ON schema_migrations TO agent_member;
-- The cost ledger is append-only: a model call is recorded once and never changed.
GRANT SELECT, INSERT ON usage_ledger TO agent_member;
-- Notes and reports are the team's to read; row-level security lets only the author delete one, and
-- a report's author complete it.
GRANT SELECT, INSERT, DELETE ON notes TO agent_member;
GRANT SELECT, INSERT, DELETE ON research_runs TO agent_member;
GRANT UPDATE (mode, answer, cost_usd, result, status) ON research_runs TO agent_member;
GRANT SELECT, INSERT, UPDATE, DELETE ON run_texts, run_progress, run_plans, run_searches, run_sources
  TO agent_member;
GRANT SELECT, INSERT, DELETE ON source_texts TO agent_member;
-- Chats are private (row-level security, forced); a session's summary is updated as it grows.
GRANT SELECT, INSERT, DELETE ON chat_sessions, chat_messages TO agent_member;
GRANT UPDATE (updated_at, provider, model) ON chat_sessions TO agent_member;
-- The shared document index: anyone may refresh it. Research compares an indexed text with its file,
-- read afresh, before using it, so a planted text never reaches an answer. The page and extraction
-- caches are each person's own (row-level security, migration 017).
GRANT SELECT, INSERT, UPDATE, DELETE ON documents, passage_spans, document_blocks, index_leases,
  indexed_roots, index_meta, page_cache, page_bodies, extraction_cache TO agent_member;
-- What `agent db copy` has copied: recorded, never changed.
GRANT SELECT, INSERT ON copied_rows TO agent_member;
-- Passage vectors, where the server has pgvector (db/vectors.sql): anyone refreshing the index adds
-- them; forgetting those no passage uses any more is part of refreshing. pgvector's own functions (its
-- types' input and casts, its distance operators) are in this schema, whose functions PUBLIC was just
-- refused: a member is given those, and only those (where this role may grant them).
DO $$
DECLARE
  fn record;
BEGIN
  IF pg_catalog.to_regclass('passage_vector_signs') IS NOT NULL THEN
    GRANT SELECT, INSERT, DELETE ON passage_vectors, passage_vector_signs TO agent_member;
  END IF;
  FOR fn IN
    SELECT p.oid::pg_catalog.regprocedure AS sig FROM pg_catalog.pg_proc p
    JOIN pg_catalog.pg_depend d
      ON d.classid = 'pg_catalog.pg_proc'::pg_catalog.regclass AND d.objid = p.oid AND d.deptype = 'e'
    JOIN pg_catalog.pg_extension e ON e.oid = d.refobjid AND e.extname = 'vector'
  LOOP
    BEGIN
      EXECUTE pg_catalog.format('GRANT EXECUTE ON FUNCTION %s TO agent_member', fn.sig);
    EXCEPTION WHEN insufficient_privilege THEN
      NULL; -- the extension is another role's, which left PUBLIC its functions
    END;
  END LOOP;
END
$$;
-- Batches (`agent research --batch --queue`): added and cancelled by their author; any member's worker
-- records an item's progress and outcome, never its question or settings. Model-call slots are shared.
GRANT EXECUTE ON FUNCTION agent_owns_batch(text) TO agent_member;
GRANT SELECT, INSERT ON batches TO agent_member;
GRANT UPDATE (cancelled_at) ON batches TO agent_member;
GRANT SELECT, INSERT ON batch_items TO agent_member;
GRANT UPDATE (job_id, state, run_id, result, error, holder, attempts, updated_at) ON batch_items
  TO agent_member;
GRANT SELECT, INSERT, UPDATE ON provider_slots TO agent_member;
