-- What a member may do in the job queue's schema (pg-boss's tables, made by `agent db migrate`): take,
-- finish, hand back and add jobs of the one research queue. pg-boss fails a job by deleting and
-- re-inserting its row, so the job table needs all four; the queue's definition is read-only.
-- Applied by `agent db migrate` after db/grants.sql. Safe to run again.
REVOKE ALL ON ALL TABLES IN SCHEMA agent_queue FROM agent_member;
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA agent_queue FROM PUBLIC;
GRANT USAGE ON SCHEMA agent_queue TO agent_member;
GRANT SELECT ON agent_queue.queue, agent_queue.schedule, agent_queue.subscription TO agent_member;
GRANT SELECT, UPDATE ON agent_queue.version TO agent_member;
GRANT SELECT, INSERT, UPDATE, DELETE ON agent_queue.job TO agent_member;
GRANT SELECT, INSERT, DELETE ON agent_queue.archive TO agent_member;
