import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AbortedError } from '../../src/errors.js';
import { runTurn } from '../../src/loop/run-turn.js';
import { createProvider } from '../../src/providers/registry.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import type { AssistantMessage, Message, ProviderName, StreamEvent } from '../../src/types.js';
import { json, pointProvidersAt, sse, startFakeServer } from '../support/fake-server.js';
import { chatSse } from '../support/sse-builders.js';
import { testTools } from '../support/test-tools.js';

const fixture = (path: string) => readFileSync(new URL(`../fixtures/${path}`, import.meta.url), 'utf8');

let server: Awaited<ReturnType<typeof startFakeServer>>;
const savedEnv = { ...process.env };

beforeEach(async () => {
  server = await startFakeServer();
  pointProvidersAt(server.url);
});

afterEach(async () => {
  process.env = { ...savedEnv };
  await server.close();
});

async function roundTrip(provider: ProviderName, model: string) {
  const t = testTools();
  const events: StreamEvent[] = [];
  const calls: AssistantMessage[] = [];
  const result = await runTurn([], 'Add 2 and 3, then call fail.', {
    provider: await createProvider(provider),
    model,
    system: 'You are terse.',
    registry: new ToolRegistry(t.tools),
    maxTurns: 4,
    onEvent: (e) => (e.type === 'text' || e.type === 'toolCallStart' ? events.push(e) : undefined),
    onModelCall: (m) => calls.push(m),
  });
  return { result, events, calls, runs: t.runs };
}

describe('anthropic (Messages API)', () => {
  it('streams text and parallel tool_use, sends all results back in one user message with is_error', async () => {
    server.queue.push(
      sse(fixture('anthropic/text-then-parallel-tool-use.sse')),
      sse(fixture('anthropic/text-end-turn.sse')),
    );
    const { result, events, calls, runs } = await roundTrip('anthropic', 'claude-sonnet-5-5');

    expect(runs).toEqual(['add', 'fail']);
    expect(result.text).toBe('2 + 3 = 5, and the other tool failed.');
    expect(events.slice(0, 3)).toEqual([
      { type: 'text', delta: "I'll work both" },
      { type: 'text', delta: ' out.' },
      { type: 'toolCallStart', id: 'toolu_01A', name: 'add' },
    ]);
    expect(calls[0]!.stopReason).toBe('toolUse');
    expect(calls[0]!.usage).toEqual({ input: 12, cacheRead: 1830, cacheWrite: 0, output: 71, reasoning: 0 });
    expect(calls[1]!.usage).toEqual({ input: 40, cacheRead: 1830, cacheWrite: 95, output: 15, reasoning: 0 });

    const [first, second] = server.requests;
    expect(first!.url).toBe('/v1/messages');
    expect(first!.headers['x-api-key'] ?? first!.headers.authorization).toMatch(/sk-ant-test/);
    const body1 = first!.body as Record<string, any>;
    expect(body1).toMatchObject({ model: 'claude-sonnet-5-5', stream: true, max_tokens: 16_384 });
    expect(body1.system).toEqual([
      { type: 'text', text: 'You are terse.', cache_control: { type: 'ephemeral' } },
    ]);
    expect(body1.tools.map((t: any) => t.name)).toEqual(['add', 'fail', 'delete_everything']);
    expect(body1.tools[0].input_schema).toMatchObject({
      type: 'object',
      required: ['a', 'b'],
      additionalProperties: false,
    });
    expect(body1.tools.at(-1).cache_control).toEqual({ type: 'ephemeral' });

    const body2 = second!.body as Record<string, any>;
    expect(body2.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Add 2 and 3, then call fail.' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: "I'll work both out." },
          { type: 'tool_use', id: 'toolu_01A', name: 'add', input: { a: 2, b: 3 } },
          { type: 'tool_use', id: 'toolu_01B', name: 'fail', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_01A', content: '5' },
          {
            type: 'tool_result',
            tool_use_id: 'toolu_01B',
            content: 'fail failed: disk on fire',
            is_error: true,
            cache_control: { type: 'ephemeral' },
          },
        ],
      },
    ]);
  });

  it('never runs a tool_use cut off by max_tokens', async () => {
    server.queue.push(
      sse(fixture('anthropic/max-tokens-inside-tool-use.sse')),
      sse(fixture('anthropic/text-end-turn.sse')),
    );
    const { calls, runs } = await roundTrip('anthropic', 'claude-haiku-5-5');
    expect(calls[0]!.stopReason).toBe('length');
    expect(runs).toEqual([]);
    const sent = (server.requests[1]!.body as any).messages;
    expect(sent[1].content).toEqual([{ type: 'tool_use', id: 'toolu_01C', name: 'add', input: {} }]);
    expect(sent[2].content[0]).toMatchObject({ tool_use_id: 'toolu_01C', is_error: true });
    expect(sent[2].content[0].content).toMatch(/cut off by the output token limit/);
  });

  it('retries a 429 with retry-after, then succeeds', async () => {
    server.queue.push(
      json(
        429,
        { type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } },
        { 'retry-after': '0' },
      ),
      json(
        529,
        { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
        { 'retry-after': '0' },
      ),
      sse(fixture('anthropic/text-end-turn.sse')),
    );
    const { result } = await roundTrip('anthropic', 'claude-sonnet-5-5');
    expect(result.text).toMatch(/2 \+ 3 = 5/);
    expect(server.requests).toHaveLength(3);
  });

  it('sends back a thinking block whose start left out the signature, with the signature streamed after', async () => {
    const frame = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
    const usage = { input_tokens: 10, output_tokens: 1 };
    server.queue.push(
      sse(
        frame('message_start', {
          type: 'message_start',
          message: { id: 'm1', type: 'message', role: 'assistant', model: 'x', content: [], usage },
        }) +
          // As in Anthropic's own documentation example: no "signature" key in the block's start.
          frame('content_block_start', {
            type: 'content_block_start',
            index: 0,
            content_block: { type: 'thinking', thinking: '' },
          }) +
          frame('content_block_delta', {
            type: 'content_block_delta',
            index: 0,
            delta: { type: 'thinking_delta', thinking: 'Add them.' },
          }) +
          frame('content_block_delta', {
            type: 'content_block_delta',
            index: 0,
            delta: { type: 'signature_delta', signature: 'SIG123' },
          }) +
          frame('content_block_stop', { type: 'content_block_stop', index: 0 }) +
          frame('content_block_start', {
            type: 'content_block_start',
            index: 1,
            content_block: { type: 'tool_use', id: 'toolu_1', name: 'add', input: {} },
          }) +
          frame('content_block_delta', {
            type: 'content_block_delta',
            index: 1,
            delta: { type: 'input_json_delta', partial_json: '{"a":2,"b":3}' },
          }) +
          frame('content_block_stop', { type: 'content_block_stop', index: 1 }) +
          frame('message_delta', {
            type: 'message_delta',
            delta: { stop_reason: 'tool_use' },
            usage: { output_tokens: 5 },
          }) +
          frame('message_stop', { type: 'message_stop' }),
      ),
      sse(fixture('anthropic/text-end-turn.sse')),
    );
    await roundTrip('anthropic', 'claude-sonnet-5-5');
    const second = server.requests[1]!.body as any;
    const thinking = second.messages[1].content[0];
    expect(thinking).toEqual({ type: 'thinking', thinking: 'Add them.', signature: 'SIG123' });
  });

  it('turns a 401 into one clear line naming the key, without retrying', async () => {
    server.queue.push(
      json(401, { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } }),
    );
    await expect(roundTrip('anthropic', 'claude-sonnet-5-5')).rejects.toThrow(
      'Anthropic rejected the API key (401): invalid x-api-key. Check ANTHROPIC_API_KEY.',
    );
    expect(server.requests).toHaveLength(1);
  });
});

describe('openai (Responses API)', () => {
  it('streams a function call, sends reasoning and function_call_output back, normalises usage', async () => {
    server.queue.push(
      sse(fixture('openai-responses/reasoning-function-call.sse')),
      sse(fixture('openai-responses/text.sse')),
    );
    const t = testTools();
    const calls: AssistantMessage[] = [];
    const result = await runTurn([], 'Add 2 and 3.', {
      provider: await createProvider('openai'),
      model: 'gpt-5-mini',
      system: 'You are terse.',
      registry: new ToolRegistry([t.tools[0]!, t.tools[1]!]),
      maxTurns: 4,
      onModelCall: (m) => calls.push(m),
    });
    expect(result.text).toBe('The sum is 5.');
    expect(calls[0]!.usage).toEqual({
      input: 180,
      cacheRead: 1920,
      cacheWrite: 0,
      output: 220,
      reasoning: 192,
    });

    const [first, second] = server.requests;
    expect(first!.url).toBe('/v1/responses');
    expect(first!.headers.authorization).toBe('Bearer sk-test');
    const body1 = first!.body as Record<string, any>;
    expect(body1).toMatchObject({
      model: 'gpt-5-mini',
      instructions: 'You are terse.',
      stream: true,
      store: false,
      include: ['reasoning.encrypted_content'],
      input: [{ role: 'user', content: 'Add 2 and 3.' }],
    });
    expect(body1.tools[0]).toMatchObject({ type: 'function', name: 'add', strict: true });

    expect((second!.body as any).input).toEqual([
      { role: 'user', content: 'Add 2 and 3.' },
      { id: 'rs_agent01', type: 'reasoning', encrypted_content: 'gAAAAB-final-opaque', summary: [] },
      { type: 'function_call', call_id: 'call_add_1', name: 'add', arguments: '{"a":2,"b":3}' },
      { type: 'function_call_output', call_id: 'call_add_1', output: '5' },
    ]);
  });

  it('maps an incomplete response to a cut-off and does not run the partial call', async () => {
    server.queue.push(
      sse(fixture('openai-responses/incomplete-in-function-call.sse')),
      sse(fixture('openai-responses/text.sse')),
    );
    const { calls, runs } = await roundTrip('openai', 'gpt-4.1');
    expect(calls[0]!.stopReason).toBe('length');
    expect(runs).toEqual([]);
    const input = (server.requests[1]!.body as any).input;
    expect(input.at(-1)).toMatchObject({ type: 'function_call_output', call_id: 'call_cut' });
    expect((server.requests[0]!.body as any).include).toBeUndefined();
  });
});

describe('openai-compatible (Chat Completions)', () => {
  it('Ctrl-C mid-stream is a cancellation, not a broken reply, and leaves no history behind', async () => {
    const partial = chatSse({ text: 'Hello there, this is a long answer' })
      .split('\n\n')
      .slice(0, 3)
      .join('\n\n');
    server.queue.push({ ...sse(partial), hang: true });
    const controller = new AbortController();
    const t = testTools();
    const history: Message[] = [];
    setTimeout(() => controller.abort(), 150);
    await expect(
      runTurn(history, 'hi', {
        provider: await createProvider('openai-compatible'),
        model: 'm',
        registry: new ToolRegistry(t.tools),
        maxTurns: 2,
        signal: controller.signal,
      }),
    ).rejects.toBeInstanceOf(AbortedError);
    expect(history).toEqual([]);
  });

  it('reassembles tool_call fragments by index and sends tool messages back', async () => {
    server.queue.push(
      sse(fixture('openai-chat/parallel-tool-calls.sse')),
      sse(fixture('openai-chat/text.sse')),
    );
    const { result, calls, runs } = await roundTrip('openai-compatible', 'gpt-4o');
    expect(runs).toEqual(['add', 'fail']);
    expect(result.text).toBe('Nine.');
    expect(calls[0]!.usage).toEqual({ input: 161, cacheRead: 256, cacheWrite: 0, output: 44, reasoning: 0 });

    const [first, second] = server.requests;
    expect(first!.url).toBe('/v1/chat/completions');
    expect(first!.body).toMatchObject({
      model: 'gpt-4o',
      stream: true,
      stream_options: { include_usage: true },
    });
    expect((second!.body as any).messages).toEqual([
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'Add 2 and 3, then call fail.' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_one', type: 'function', function: { name: 'add', arguments: '{"a": 2, "b": 3}' } },
          { id: 'call_two', type: 'function', function: { name: 'fail', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_one', content: '5' },
      { role: 'tool', tool_call_id: 'call_two', content: 'Error: fail failed: disk on fire' },
    ]);
  });

  it('a compatible server (Ollama at /v1): gives a call without an id a stable one, used for the call and its tool message', async () => {
    server.queue.push(
      sse(fixture('openai-chat/tool-call-without-id.sse')),
      sse(fixture('openai-chat/text.sse')),
    );
    const { runs } = await roundTrip('openai-compatible', 'llama3.1');
    expect(runs).toEqual(['add']);
    const messages = (server.requests[1]!.body as any).messages;
    const id = messages[2].tool_calls[0].id;
    expect(id).toMatch(/^call_[0-9a-f]{24}$/);
    expect(messages[3]).toEqual({ role: 'tool', tool_call_id: id, content: '9' });
  });

  it('retries a 500, then reports a 404 model as one line', async () => {
    server.queue.push(json(500, { error: { message: 'boom' } }), sse(fixture('openai-chat/text.sse')));
    const ok = await roundTrip('openai-compatible', 'gpt-4o');
    expect(ok.result.text).toBe('Nine.');
    server.queue.push(json(404, { error: { message: 'model "nope" not found, try pulling it first' } }));
    await expect(roundTrip('openai-compatible', 'nope')).rejects.toThrow(
      /the OpenAI-compatible server has no model "nope" here \(404\): model "nope" not found, try pulling it first\. Choose another with --model\./,
    );
  });
});
