import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli, tempDb } from '../support/cli.js';
import { sqliteStore } from '../support/stores.js';

describe('agent cost', () => {
  it('says plainly that an empty ledger is empty', async () => {
    const r = await runCli(['cost'], { env: { AGENT_DB: tempDb() } });
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toMatch(/No model calls recorded yet/);
  });

  it('says a damaged database is damaged, in one line, exit 1', async () => {
    const path = tempDb();
    await (await sqliteStore(path)).close();
    // Pages past the header, where the tables are: the file opens, the ledger read fails. The page size
    // is the header's (bytes 16–17).
    const page = readFileSync(path).readUInt16BE(16);
    const file = openSync(path, 'r+');
    writeSync(file, Buffer.alloc(3 * page, 0xff), 0, 3 * page, 3 * page);
    closeSync(file);
    const r = await runCli(['cost'], { env: { AGENT_DB: path } });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `agent: the database ${path} is damaged (database disk image is malformed); \`agent db check\` shows what, and \`agent db recover --to <file>\` copies out every row that can still be read\n`,
    );
  });

  it('prints a table with a total row, and the documented JSON', async () => {
    const path = tempDb();
    const store = await sqliteStore(path);
    const usage = { input: 1000, cacheRead: 2000, cacheWrite: 300, output: 400, reasoning: 100 };
    await store.ledger.record({
      command: 'chat',
      runId: 's',
      step: 'chat',
      provider: 'anthropic',
      model: 'claude-haiku-4-5',
      usage,
    });
    await store.ledger.record({
      command: 'research',
      runId: 'r',
      step: 'plan',
      provider: 'openai-compatible',
      model: 'local-x',
      usage,
    });
    await store.close();

    const text = await runCli(['cost'], { env: { AGENT_DB: path } });
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^MODEL\s+CALLS\s+INPUT\s+CACHE READ\s+CACHE WRITE\s+OUTPUT/m);
    expect(text.stdout).toMatch(
      /anthropic claude-haiku-4-5\s+1\s+1,000\s+2,000\s+300\s+400\s+100\s+\$0\.003575/,
    );
    expect(text.stdout).toMatch(/openai-compatible local-x .*unknown/);
    expect(text.stdout).toMatch(/^TOTAL\s+2\s+2,000\s+4,000\s+600\s+800\s+200\s+\$0\.003575 \+ unknown$/m);

    const json = await runCli(['cost', '--json', '--by', 'command'], { env: { AGENT_DB: path } });
    const parsed = JSON.parse(json.stdout);
    expect(parsed.totals).toEqual({
      calls: 2,
      inputTokens: 2000,
      outputTokens: 800,
      cacheReadTokens: 4000,
      cacheWriteTokens: 600,
      reasoningTokens: 200,
      costUsd: expect.closeTo(0.003575, 8),
      unpricedCalls: 1,
      cancelledCalls: 0,
    });
    expect(parsed.rows.map((r: { key: string }) => r.key).sort()).toEqual(['chat', 'research']);
  });

  it('counts a call cancelled mid-answer in every figure and says how many there were', async () => {
    const path = tempDb();
    const store = await sqliteStore(path);
    const base = { command: 'chat' as const, runId: 's', step: 'chat', provider: 'anthropic' };
    const model = 'claude-haiku-4-5';
    await store.ledger.record({
      ...base,
      model,
      usage: { input: 1000, cacheRead: 0, cacheWrite: 0, output: 400, reasoning: 0 },
    });
    await store.ledger.record({
      ...base,
      model,
      usage: { input: 3000, cacheRead: 0, cacheWrite: 0, output: 25, reasoning: 0 },
      cancelled: true,
    });
    await store.close();

    const text = await runCli(['cost'], { env: { AGENT_DB: path } });
    expect(text.code).toBe(0);
    // claude-haiku-4-5: $1 in, $5 out per million; the cancelled call's $0.003125 is in the total.
    expect(text.stdout).toMatch(/^TOTAL\s+2\s+4,000\s+0\s+0\s+425\s+0\s+\$0\.006125$/m);
    expect(text.stdout).toMatch(
      /^1 call\(s\) were cancelled \(Ctrl-C\) before their answer ended: billed all the same, they are counted with the tokens known at the cancel/m,
    );

    const json = JSON.parse((await runCli(['cost', '--json'], { env: { AGENT_DB: path } })).stdout);
    expect(json.totals).toMatchObject({ calls: 2, inputTokens: 4000, outputTokens: 425, cancelledCalls: 1 });
    expect(json.totals.costUsd).toBeCloseTo(0.003 + 0.003125, 10);
    expect(json.rows).toEqual([expect.objectContaining({ key: `anthropic ${model}`, cancelledCalls: 1 })]);
  });

  it('refuses a bad --since and a bad flag with one line and exit 2', async () => {
    const since = await runCli(['cost', '--since', 'last tuesday'], { env: { AGENT_DB: tempDb() } });
    expect(since.code).toBe(2);
    expect(since.stderr.trim().split('\n')).toHaveLength(1);
    expect(since.stderr).toMatch(/Invalid --since/);
    const flag = await runCli(['cost', '--by', 'planet'], { env: { AGENT_DB: tempDb() } });
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(/planet/);
    expect(flag.stderr).not.toMatch(/\bat .*\.js:\d+/);
  });

  it('reports an unusable database path without a stack trace', async () => {
    const r = await runCli(['cost'], { env: { AGENT_DB: '/dev/null/agent.db' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^agent: Cannot open the database at \/dev\/null\/agent\.db/);
    expect(r.stderr).not.toMatch(/\bat .*\.js:\d+/);
  });
});

describe('agent notes', () => {
  it('lists newest first, searches, and prints JSON', async () => {
    const path = tempDb();
    const store = await sqliteStore(path);
    await store.notes.add({ content: 'The refund limit is $200.', title: 'Refunds', tags: ['policy'] });
    await store.notes.add({ content: 'Book trains, not planes, under 500 km.' });
    await store.close();
    const all = await runCli(['notes'], { env: { AGENT_DB: path, AGENT_USER: 'tester' } });
    expect(all.stdout.indexOf('Book trains')).toBeLessThan(all.stdout.indexOf('refund limit'));
    const json = JSON.parse(
      (await runCli(['notes', 'refund', '--json'], { env: { AGENT_DB: path, AGENT_USER: 'tester' } })).stdout,
    );
    expect(json).toEqual([
      {
        id: 1,
        title: 'Refunds',
        content: 'The refund limit is $200.',
        tags: ['policy'],
        createdAt: expect.any(String),
        user: 'tester',
      },
    ]);
    // Another person's note is theirs to delete: one line, exit 2, and the note stays.
    const others = await runCli(['notes', '--delete', '2'], { env: { AGENT_DB: path, AGENT_USER: 'bob' } });
    expect(others).toMatchObject({ code: 2, stdout: '' });
    expect(others.stderr).toBe("agent: Note #2 is tester's: only its author can delete it (you are bob).\n");
    const none = await runCli(['notes', 'zebra'], { env: { AGENT_DB: path, AGENT_USER: 'tester' } });
    expect(none.stdout).toMatch(/No notes match "zebra"/);

    expect(
      (await runCli(['notes', '--delete', '1'], { env: { AGENT_DB: path, AGENT_USER: 'tester' } })).stdout,
    ).toBe('Deleted note #1.\n');
    const again = await runCli(['notes', '--delete', '1'], { env: { AGENT_DB: path, AGENT_USER: 'tester' } });
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/There is no note #1/);
    expect(
      JSON.parse(
        (await runCli(['notes', 'refund', '--json'], { env: { AGENT_DB: path, AGENT_USER: 'tester' } }))
          .stdout,
      ),
    ).toEqual([]);
  });
});

describe('agent', () => {
  it('prints its version and help, and offers only commands that exist', async () => {
    const version = await runCli(['--version']);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    const help = await runCli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/cost/);
    expect(help.stdout).toMatch(/notes/);
    const unknown = await runCli(['fly']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown command 'fly'/);
  });
});
