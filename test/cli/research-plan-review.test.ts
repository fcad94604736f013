import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { reviewStep } from '../../src/cli/research-review.js';
import { tempDb } from '../support/cli.js';
import { type RecordedRequest, sse, startFakeServer } from '../support/fake-server.js';
import { hasScript, terminalAgent } from '../support/pty.js';
import { chatSse } from '../support/sse-builders.js';

// `agent research --review` on a real pseudo-terminal: the plan is shown and edited before anything else
// is spent.

let server: Awaited<ReturnType<typeof startFakeServer>>;
const systemOf = (req: RecordedRequest) => ((req.body as any)?.messages?.[0]?.content as string) ?? '';
const userOf = (req: RecordedRequest) => ((req.body as any)?.messages?.at(-1)?.content as string) ?? '';
beforeEach(async () => {
  server = await startFakeServer([], (req) => {
    const system = systemOf(req);
    if (system.includes('You plan research'))
      return sse(
        chatSse({ text: '{"documents": ["policies/refunds", "support/escalation"], "searches": []}' }),
      );
    if (system.includes('You extract facts')) return sse(chatSse({ text: '- A fact.' }));
    return sse(chatSse({ text: 'The reviewed answer [1][2].' }));
  });
});
afterEach(() => server.close());

const review = (db: string) =>
  terminalAgent(
    [
      'research',
      '--review',
      '--provider openai-compatible --small-model s --large-model l',
      "'Who approves refunds?'",
    ],
    { OPENAI_BASE_URL: `${server.url}/v1`, AGENT_DB: db },
  );

it.skipIf(!hasScript)('drops and adds items by what the user types, then runs the edited plan', async () => {
  const { waitFor, type, exited, mark, out } = review(tempDb());
  await waitFor(
    /1\. policies\/refunds — Refunds Policy\s+2\. support\/escalation — Support Escalation Procedure/,
  );
  await waitFor(/review> /);
  // Nothing but the plan call before the user answers.
  expect(server.requests.map(systemOf).filter((s) => !s.includes('You plan research'))).toEqual([]);

  let from = mark();
  type('1\r');
  await waitFor(/Documents:\s+1\. support\/escalation/, from);
  from = mark();
  type('7\r');
  await waitFor(/No item 7: the plan has item 1\./, from);
  from = mark();
  type('@approvals\r');
  await waitFor(/No document "approvals"; did you mean @policies\/approvals\?/, from);
  from = mark();
  type('@policies/approvals\r');
  await waitFor(/2\. policies\/approvals — Spending Approvals Policy/, from);
  from = mark();
  type('+ refund law in France\r');
  await waitFor(/Web searches:\s+3\. refund law in France/, from);
  type('\r');
  expect(await exited).toBe(0);
  expect(out()).toMatch(/Web searches skipped: no search service is set up/);
  // The time spent at the prompt is the review's own step, not the plan's.
  expect(out()).toMatch(/plan [\d.]+ s, review [\d.]+ s, sources [\d.]+ s/);
  // On a terminal the answer is rendered: citations are dimmed, so colours sit between them.
  expect(out().replace(/\x1b\[[0-9;]*m/g, '')).toMatch(/The reviewed answer \[1\]\[2\]\./);
  const extracted = server.requests
    .filter((r) => systemOf(r).includes('You extract facts'))
    .map((r) => /^Source: (.*) \(/m.exec(userOf(r))?.[1])
    .sort();
  expect(extracted).toEqual(['Spending Approvals Policy', 'Support Escalation Procedure']);
});

it.skipIf(!hasScript)('q cancels before anything but the plan is spent', async () => {
  const { waitFor, type, exited, out } = review(tempDb());
  await waitFor(/review> /);
  type('q\r');
  expect(await exited).toBe(130);
  expect(out()).toMatch(/Cancelled\./);
  expect(server.requests).toHaveLength(1);
});

describe('what the user types at the review prompt', () => {
  const docs = [
    { slug: 'a/one', title: 'One', path: '/a/one.md' },
    { slug: 'b/two', title: 'Two', path: '/b/two.md' },
  ];
  const plan = { documents: [{ slug: 'a/one', title: 'One' }], searches: ['first', 'second'] };

  it('Enter keeps, q cancels, numbers drop across documents and searches', () => {
    expect(reviewStep(plan, '', docs)).toEqual({ kind: 'keep' });
    expect(reviewStep(plan, ' Q ', docs)).toEqual({ kind: 'cancel' });
    expect(reviewStep(plan, '1, 3', docs)).toEqual({
      kind: 'edit',
      plan: { documents: [], searches: ['first'] },
    });
    expect(reviewStep(plan, '0 4', docs)).toEqual({
      kind: 'problem',
      message: 'No item 0, 4: the plan has items 1 to 3.',
    });
  });

  it('+ adds a search, @ a known document; an empty plan cannot be kept', () => {
    expect(reviewStep(plan, '+  third one ', docs)).toMatchObject({
      plan: { searches: ['first', 'second', 'third one'] },
    });
    expect(reviewStep(plan, '+ FIRST', docs)).toMatchObject({ kind: 'problem' });
    expect(reviewStep(plan, '@b/two', docs)).toMatchObject({
      plan: {
        documents: [
          { slug: 'a/one', title: 'One' },
          { slug: 'b/two', title: 'Two' },
        ],
      },
    });
    expect(reviewStep(plan, '@two', docs)).toEqual({
      kind: 'problem',
      message: 'No document "two"; did you mean @b/two?',
    });
    expect(reviewStep({ documents: [], searches: [] }, '', docs)).toMatchObject({ kind: 'problem' });
    expect(reviewStep(plan, 'what?', docs)).toMatchObject({ kind: 'problem' });
  });
});
