import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { startTestDatabase, type TestDatabase } from '../support/pg.js';
import { dropRoles, type Member, makeTeamRoles, member } from '../support/pg-roles.js';
import {
  batchFile,
  type QueueModel,
  question,
  queueArgs,
  queueEnv,
  startQueueModel,
} from '../support/queue-world.js';

// The queue under the team's least privilege, on a real server (CI's PostgreSQL; PGlite serves every
// connection as one role): the admin's `agent db migrate` makes the queue's schema and grants, a member
// queues a batch, another member's worker answers it; members cannot change a question, cancel another's
// batch, or touch the queue's definition.

const real = Boolean(process.env.AGENT_TEST_DATABASE_URL);
let db: TestDatabase;
let model: QueueModel;
const people: Member[] = [];
const ROLES = ['queue_alice', 'queue_bob'];

const urlOf = (role: string) => {
  const url = new URL(db.url);
  url.username = role;
  url.password = `${role}-pw`;
  return url.toString();
};
const as = (role: string, args: string[]) =>
  runCli(args, { env: { ...queueEnv(db, model), AGENT_DATABASE_URL: urlOf(role), AGENT_USER: role } });

beforeAll(async () => {
  if (!real) return;
  db = await startTestDatabase();
  model = await startQueueModel();
  await makeTeamRoles(db);
  const migrated = await runCli(['db', 'migrate'], { env: { AGENT_DATABASE_URL: db.url } });
  expect(migrated.stdout).toMatch(/job queue \(schema agent_queue\)/);
  for (const role of ROLES) people.push(await member(db, role));
});
afterAll(async () => {
  if (!real) return;
  for (const p of people) await p.close();
  await model.close();
  await db.stop();
  await dropRoles(db, ROLES);
});

describe.skipIf(!real)('the queue as team members', () => {
  it("one member queues, another's worker answers; neither can change what is not theirs", async () => {
    const q = question(60);
    const queued = await as('queue_alice', queueArgs(batchFile([q])));
    expect(queued.stderr).toMatch(/Queued batch/);
    expect(queued.code).toBe(0);
    const id = queued.stdout.trim();

    const worker = await as('queue_bob', ['worker', '--until-empty']);
    expect(worker.stderr).not.toMatch(/permission denied|\n\s+at /);
    expect(worker.code).toBe(0);
    const status = JSON.parse((await as('queue_alice', ['batch', 'status', id, '--json'])).stdout);
    expect(status.counts).toMatchObject({ done: 1, failed: 0 });
    const [report] = await db.sql<{ owner_role: string }>(
      "SELECT owner_role FROM research_runs WHERE question = $1 AND status = 'done'",
      [q],
    );
    expect(report?.owner_role).toBe('queue_bob');

    const cancel = await as('queue_bob', ['batch', 'cancel', id]);
    expect(cancel.code).toBe(2);
    expect(cancel.stderr).toMatch(/not yours/);

    await people[1]!.as(async (_store, sql) => {
      await expect(
        sql("UPDATE batch_items SET question = 'planted' WHERE batch_id = $1", [id]),
      ).rejects.toThrow(/permission denied/);
      await expect(sql('UPDATE agent_queue.queue SET retry_limit = 0')).rejects.toThrow(/permission denied/);
      await expect(sql("SELECT agent_queue.create_queue('mine', '{}')")).rejects.toThrow(/permission denied/);
      await expect(sql("UPDATE batches SET options = '{}' WHERE id = $1", [id])).rejects.toThrow(
        /permission denied/,
      );
    });
  });
});
