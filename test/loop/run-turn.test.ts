import { describe, expect, it } from 'vitest';
import { AbortedError } from '../../src/errors.js';
import { runTurn, type TurnOptions } from '../../src/loop/run-turn.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import type { Message, ToolResultMessage } from '../../src/types.js';
import { assertWellFormed, reply, scriptedProvider, text, toolCall } from '../support/scripted-provider.js';
import { testTools } from '../support/test-tools.js';

function setup(script: Parameters<typeof scriptedProvider>[0], extra: Partial<TurnOptions> = {}) {
  const t = testTools();
  const provider = scriptedProvider(script);
  const options: TurnOptions = {
    provider,
    model: 'scripted',
    registry: new ToolRegistry(t.tools),
    maxTurns: 8,
    ...extra,
  };
  return { ...t, provider, options };
}

const results = (messages: Message[]) =>
  messages.filter((m): m is ToolResultMessage => m.role === 'toolResult');

describe('the tool loop', () => {
  it('ends the turn on a reply without tool calls, in one model call', async () => {
    const { options, provider } = setup([reply([text('Hello.')])]);
    const r = await runTurn([], 'hi', options);
    expect(r).toMatchObject({ text: 'Hello.', modelCalls: 1, end: 'answered' });
    expect(provider.requests[0]!.messages).toEqual([{ role: 'user', content: 'hi' }]);
  });

  it('runs valid calls in parallel and returns results in call order, one per id', async () => {
    const { options, provider, runs, maxActive } = setup([
      reply([
        text('Let me add.'),
        toolCall('c1', 'add', { a: 1, b: 2 }),
        toolCall('c2', 'add', { a: 10, b: 20 }),
      ]),
      reply([text('3 and 30.')]),
    ]);
    const r = await runTurn([], 'add things', options);
    expect(runs).toEqual(['add', 'add']);
    expect(maxActive()).toBe(2);
    const sent = provider.requests[1]!.messages;
    expect(sent.slice(2)).toEqual([
      { role: 'toolResult', toolCallId: 'c1', toolName: 'add', content: '3', isError: false },
      { role: 'toolResult', toolCallId: 'c2', toolName: 'add', content: '30', isError: false },
    ]);
    expect(r.modelCalls).toBe(2);
    assertWellFormed(r.messages);
  });

  it('refuses unknown tools, missing fields, wrong types and unknown arguments with precise errors', async () => {
    const { options, runs } = setup([
      reply([
        toolCall('u', 'multiply', { a: 1 }),
        toolCall('m', 'add', { a: 1 }),
        toolCall('w', 'add', { a: 1, b: 'two' }),
        toolCall('x', 'add', { a: 1, b: 2, c: 3 }),
        toolCall('j', 'add', '{"a": 1, "b"'),
      ]),
      reply([text('Sorry.')]),
    ]);
    const r = await runTurn([], 'go', options);
    expect(runs).toEqual([]);
    const errs = results(r.messages);
    expect(errs.every((e) => e.isError)).toBe(true);
    expect(errs[0]!.content).toBe('Unknown tool "multiply". Available tools: add, fail, delete_everything.');
    expect(errs[1]!.content).toMatch(
      /Invalid arguments for add: "b": Invalid input: expected number, received undefined/,
    );
    expect(errs[2]!.content).toMatch(/"b": Invalid input: expected number, received string/);
    expect(errs[3]!.content).toMatch(/Unrecognized key: "c"/);
    expect(errs[4]!.content).toMatch(/not complete JSON/);
  });

  it('turns a throwing tool into an error result and carries on', async () => {
    const { options } = setup([reply([toolCall('f', 'fail', {})]), reply([text('It failed.')])]);
    const r = await runTurn([], 'go', options);
    expect(results(r.messages)).toEqual([
      {
        role: 'toolResult',
        toolCallId: 'f',
        toolName: 'fail',
        content: 'fail failed: disk on fire',
        isError: true,
      },
    ]);
    expect(r.end).toBe('answered');
  });

  it('stops when a reply repeats a call refused earlier in the turn, running none of its calls', async () => {
    const notices: string[] = [];
    const { options, runs } = setup(
      [
        reply([toolCall('a', 'add', { a: 1 })]),
        reply([toolCall('b', 'add', { a: 2, b: 2 }), toolCall('c', 'add', { a: 1 })]),
      ],
      { onEvent: (e) => e.type === 'notice' && notices.push(e.message) },
    );
    const r = await runTurn([], 'go', options);
    expect(r.end).toBe('repeat');
    expect(r.modelCalls).toBe(2);
    expect(runs).toEqual([]);
    expect(notices[0]).toMatch(/repeated a tool call/);
    assertWellFormed(r.messages);
  });

  it('runs the last allowed turn, then asks once more with tools disabled', async () => {
    const { options, provider, runs } = setup(
      (req, i) =>
        req.toolChoice === 'none'
          ? reply([text('Best answer so far.')])
          : reply([toolCall(`c${i}`, 'add', { a: i, b: 1 })]),
      { maxTurns: 3 },
    );
    const r = await runTurn([], 'loop forever', options);
    expect(runs).toHaveLength(3);
    expect(r).toMatchObject({ modelCalls: 4, end: 'budget', text: 'Best answer so far.' });
    expect(provider.requests.map((q) => q.toolChoice)).toEqual(['auto', 'auto', 'auto', 'none']);
    assertWellFormed(r.messages);
  });

  it('answers calls in the tools-off reply of a server that ignores tool_choice, without running them', async () => {
    const notices: string[] = [];
    const { options, runs } = setup((_req, i) => reply([toolCall(`c${i}`, 'add', { a: i, b: 1 })]), {
      maxTurns: 1,
      onEvent: (e) => e.type === 'notice' && notices.push(e.message),
    });
    const r = await runTurn([], 'loop', options);
    expect(runs).toHaveLength(1);
    expect(r.text).toBe('');
    expect(r.messages.at(-1)).toMatchObject({ role: 'toolResult', toolCallId: 'c1', isError: true });
    expect(notices.at(-1)).toMatch(/asked for more tools instead of answering/);
    assertWellFormed(r.messages);
  });

  it('never runs the call a reply was cut off in, even if its JSON happens to parse', async () => {
    const { options, runs } = setup([
      reply([toolCall('ok', 'add', { a: 1, b: 1 }), toolCall('cut', 'add', { a: 1, b: 2 })], 'length'),
      reply([toolCall('cut2', 'add', '{"a": 1, "b": 2')], 'toolUse'),
      reply([text('done')]),
    ]);
    const r = await runTurn([], 'go', options);
    expect(runs).toEqual(['add']);
    const rs = results(r.messages);
    expect(rs.map((x) => [x.toolCallId, x.isError])).toEqual([
      ['ok', false],
      ['cut', true],
      ['cut2', true],
    ]);
    expect(rs[1]!.content).toMatch(/cut off by the output token limit/);
    expect(rs[2]!.content).toMatch(/not complete JSON/);
  });

  it('leaves the history untouched when a model call fails', async () => {
    const history: Message[] = [{ role: 'user', content: 'earlier' }, reply([text('ok')])];
    const before = structuredClone(history);
    const { options } = setup((_req, i) => {
      if (i === 0) return reply([toolCall('c', 'add', { a: 1, b: 1 })]);
      throw new Error('503 from upstream');
    });
    await expect(runTurn(history, 'go', options)).rejects.toThrow('503');
    expect(history).toEqual(before);
  });

  it('asks before running a tool that needs confirmation, and refuses without a terminal', async () => {
    const script = () => [reply([toolCall('d', 'delete_everything', { really: true })]), reply([text('ok')])];
    const none = setup(script());
    const r1 = await runTurn([], 'go', none.options);
    expect(results(r1.messages)[0]!.content).toMatch(/needs the user's confirmation.*--yes/);
    expect(none.runs).toEqual([]);

    const declined = setup(script(), { confirm: async () => false });
    expect(results((await runTurn([], 'go', declined.options)).messages)[0]!.content).toMatch(/declined/);

    const yes = setup(script(), { autoApprove: true });
    await runTurn([], 'go', yes.options);
    expect(yes.runs).toEqual(['delete_everything']);
  });

  it('reports every model call for the ledger', async () => {
    const seen: number[] = [];
    const { options } = setup([reply([toolCall('c', 'add', { a: 1, b: 1 })]), reply([text('2')])], {
      onModelCall: (m) => seen.push(m.usage.input),
    });
    await runTurn([], 'go', options);
    expect(seen).toEqual([10, 10]);
  });

  it('reports a call cancelled mid-stream for the ledger, then cancels the turn without keeping it', async () => {
    const partial = { ...reply([text('Half an ans')], 'aborted'), usage: { ...reply([]).usage, output: 3 } };
    const seen: { stopReason: string; output: number }[] = [];
    const { options } = setup([reply([toolCall('c', 'add', { a: 1, b: 1 })])], {
      onModelCall: (m) => seen.push({ stopReason: m.stopReason, output: m.usage.output }),
    });
    // The first call completes; the second is cancelled while streaming.
    const inner = options.provider;
    let n = 0;
    options.provider = {
      name: inner.name,
      complete: async (request) => {
        if (n++ === 0) return inner.complete(request);
        throw new AbortedError({ partial });
      },
    };
    const history: Message[] = [];
    const error = await runTurn(history, 'go', options).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AbortedError);
    expect(seen).toEqual([
      { stopReason: 'toolUse', output: 5 },
      { stopReason: 'aborted', output: 3 },
    ]);
    expect(history).toEqual([]);
  });
});
