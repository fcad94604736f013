import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { savedRun } from '../report/run-fixture.js';
import { runCli, tempDb } from '../support/cli.js';
import { sqliteStore } from '../support/stores.js';

async function seeded(): Promise<string> {
  const path = tempDb();
  const store = await sqliteStore(path);
  const run = savedRun();
  await store.runs.save({
    question: run.question as string,
    mode: 'model',
    answer: run.answer as string,
    costUsd: 0.0312,
    result: run,
  });
  await store.close();
  return path;
}

const dir = () => mkdtempSync(join(tmpdir(), 'agent-html-'));

it('agent reports --show <id> --out x.html writes the page; --format md overrides the name', async () => {
  const db = await seeded();
  const out = join(dir(), 'report.html');
  const r = await runCli(['reports', '--show', '1', '--out', out], { env: { AGENT_DB: db } });
  expect(r.stderr).toContain(`Written to ${out}`);
  expect(r.code).toBe(0);
  const html = readFileSync(out, 'utf8');
  expect(html).toMatch(/^<!doctype html>/);
  expect(html).toContain('<a class="cite" href="#src-1"');
  expect(html).toContain('Question: How do refunds, approvals and escalations fit together?');
  // The terminal output is the same as before: a pipe gets the Markdown.
  expect(r.stdout).toContain('Support agents may refund up to **$50** without approval [1].');

  const md = join(dir(), 'report.html');
  const m = await runCli(['reports', '--show', '1', '--out', md, '--format', 'md'], {
    env: { AGENT_DB: db },
  });
  expect(m.code).toBe(0);
  expect(readFileSync(md, 'utf8')).toMatch(/^# Refunds and approvals at Acme\n/);
  const htm = join(dir(), 'x.txt');
  await runCli(['reports', '--show', '1', '-o', htm, '--format', 'html'], { env: { AGENT_DB: db } });
  expect(readFileSync(htm, 'utf8')).toMatch(/^<!doctype html>/);
});

it('--format without --out, or with an unknown format, is a usage error (exit 2, one line)', async () => {
  const db = await seeded();
  const a = await runCli(['reports', '--show', '1', '--format', 'html'], { env: { AGENT_DB: db } });
  expect(a.code).toBe(2);
  expect(a.stderr.trim()).toBe(
    'agent: --format chooses what --out writes: add --out <file> (for example --out report.html).',
  );
  expect(a.stdout).toBe('');
  const b = await runCli(['research', 'q', '--out', 'x.pdf', '--format', 'pdf'], { env: { AGENT_DB: db } });
  expect(b.code).toBe(2);
  expect(b.stderr).toMatch(/argument 'pdf' is invalid. Allowed choices are md, html/);
});

it('agent research --out answer.htm writes the page for an extractive run', async () => {
  const out = join(dir(), 'answer.htm');
  const r = await runCli(['research', 'How much can a support agent refund?', '--out', out], {
    env: { AGENT_DB: tempDb() },
  });
  expect(r.code).toBe(0);
  const html = readFileSync(out, 'utf8');
  expect(html).toContain('<title>How much can a support agent refund?</title>');
  expect(html).toContain('extractive (no model)');
  expect(html).toMatch(/<a class="cite" href="#src-1"/);
  expect(html).toMatch(/<li id="src-1" value="1">/);
});
