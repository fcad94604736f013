-- PostgreSQL only: batches answered by `agent worker` processes on any number of machines. The jobs
-- themselves are pg-boss's, in its own schema (agent_queue, made by `agent db migrate`, src/queue/);
-- these tables say what each job is and what became of it, so that a job delivered twice (a worker that
-- died, a lease that ran out) never makes a second report.
CREATE TABLE batches (
  id text PRIMARY KEY,                 -- short random id people type: agent batch status 3f9c2a1b
  created_at bigint NOT NULL,          -- unix epoch milliseconds
  created_by text,
  owner_role text NOT NULL DEFAULT session_user,
  source text NOT NULL,                -- the batch file's name (- for stdin)
  options json NOT NULL,               -- the command line's settings every question starts from
  max_cost_usd double precision,       -- one purse for the whole batch (--max-cost), NULL for none
  cancelled_at bigint                  -- `agent batch cancel`: running jobs stop at their next step
);
CREATE TABLE batch_items (
  batch_id text NOT NULL REFERENCES batches (id) ON DELETE CASCADE,
  line integer NOT NULL,               -- the line of the batch file
  question text,                       -- NULL for a line that could not be read (error says why)
  overrides json NOT NULL DEFAULT '{}',-- the line's own settings (JSON Lines)
  ledger_id text NOT NULL,             -- the run's id in usage_ledger, fixed at enqueue: every attempt shares it
  job_id uuid,                         -- the pg-boss job that answers it
  state text NOT NULL DEFAULT 'queued'
    CHECK (state IN ('queued', 'running', 'done', 'failed', 'cancelled')),
  run_id bigint,                       -- its research run, from the moment its plan is kept
  result json,                         -- the line's JSON object, as `--batch` prints it
  error text,                          -- one line: why it failed
  holder text,                         -- host:pid:token of the worker running it
  attempts integer NOT NULL DEFAULT 0,
  updated_at bigint NOT NULL,
  PRIMARY KEY (batch_id, line)
);
CREATE INDEX batch_items_state ON batch_items (batch_id, state);

-- Every model call of a batch's job carries the batch: `agent cost --by batch`, and the batch's purse.
ALTER TABLE usage_ledger ADD COLUMN batch_id text;
CREATE INDEX usage_ledger_batch ON usage_ledger (batch_id) WHERE batch_id IS NOT NULL;

-- AGENT_PROVIDER_CONCURRENCY across machines: a model call holds one row (slot) of its provider while
-- it is in flight. Taken and given back in short transactions of their own (no session state, so it
-- works through pgbouncer's transaction pooling); a slot whose holder stopped renewing it is taken over.
CREATE TABLE provider_slots (
  provider text NOT NULL,
  slot integer NOT NULL,
  holder text,
  expires_at bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (provider, slot)
);

CREATE TRIGGER batches_author BEFORE INSERT ON batches FOR EACH ROW EXECUTE FUNCTION agent_author();
-- Batches are the team's to see; only their author adds or cancels one. Any member's worker answers
-- any job: it may change an item's progress (db/grants.sql grants only those columns), never its question.
ALTER TABLE batches ENABLE ROW LEVEL SECURITY;
CREATE POLICY read ON batches FOR SELECT USING (true);
CREATE POLICY add ON batches FOR INSERT WITH CHECK (owner_role = session_user);
CREATE POLICY change ON batches FOR UPDATE USING (owner_role = session_user)
  WITH CHECK (owner_role = session_user);
CREATE FUNCTION agent_owns_batch(batch text) RETURNS boolean LANGUAGE sql STABLE
  SET search_path = pg_catalog AS $$
  SELECT EXISTS (SELECT 1 FROM public.batches b WHERE b.id = batch AND b.owner_role = session_user)
$$;
ALTER TABLE batch_items ENABLE ROW LEVEL SECURITY;
CREATE POLICY read ON batch_items FOR SELECT USING (true);
CREATE POLICY add ON batch_items FOR INSERT WITH CHECK (agent_owns_batch(batch_id));
CREATE POLICY work ON batch_items FOR UPDATE USING (true) WITH CHECK (true);
