import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AbortedError } from '../../src/errors.js';
import { runTurn } from '../../src/loop/run-turn.js';
import { createProvider } from '../../src/providers/registry.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import type { AssistantMessage, ProviderName } from '../../src/types.js';
import { runCli, tempDb } from '../support/cli.js';
import { type FakeResponse, pointProvidersAt, startFakeServer } from '../support/fake-server.js';
import { sqliteStore } from '../support/stores.js';
import { testTools } from '../support/test-tools.js';

// A model call cancelled mid-stream is billed by the provider all the same. Through the real SDK clients
// against a loopback server that sends the start of a stream and then stalls: the cancellation carries
// what is known of the call, the loop hands it to the ledger, and `agent cost` counts it.

const frame = (data: unknown, event?: string) =>
  `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`;

/** The start of a stream, then nothing: the connection stays open, as when a model is slow to go on. */
const stalled = (body: string): FakeResponse => ({
  headers: { 'content-type': 'text/event-stream' },
  body,
  hang: true,
});

// Anthropic sends the input and cache counts in message_start, before any output.
const anthropicStart = [
  frame(
    {
      type: 'message_start',
      message: {
        id: 'msg_cancel',
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-5-5-20261101',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: 1200,
          cache_creation_input_tokens: 500,
          cache_read_input_tokens: 3000,
          output_tokens: 1,
        },
      },
    },
    'message_start',
  ),
  frame(
    { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
    'content_block_start',
  ),
  frame(
    { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Paris is the capital. ' } },
    'content_block_delta',
  ),
  frame({ type: 'content_block_stop', index: 0 }, 'content_block_stop'),
  frame(
    {
      type: 'content_block_start',
      index: 1,
      content_block: { type: 'tool_use', id: 'toolu_cut', name: 'add', input: {} },
    },
    'content_block_start',
  ),
  frame(
    {
      type: 'content_block_delta',
      index: 1,
      delta: { type: 'input_json_delta', partial_json: '{"a": 2, "b' },
    },
    'content_block_delta',
  ),
].join('');

// The Responses API's response.created and in_progress carry `usage: null`.
const responsesStart = [
  frame(
    {
      type: 'response.created',
      sequence_number: 0,
      response: {
        id: 'resp_cancel',
        object: 'response',
        created_at: 1764400001,
        status: 'in_progress',
        model: 'gpt-5-mini-2025-08-07',
        output: [],
        usage: null,
      },
    },
    'response.created',
  ),
  frame(
    {
      type: 'response.output_item.added',
      sequence_number: 1,
      output_index: 0,
      item: { id: 'msg_cancel', type: 'message', status: 'in_progress', content: [], role: 'assistant' },
    },
    'response.output_item.added',
  ),
  ...['The first part of a long ', 'answer that was cut short'].map((delta, i) =>
    frame(
      {
        type: 'response.output_text.delta',
        sequence_number: 2 + i,
        item_id: 'msg_cancel',
        output_index: 0,
        content_index: 0,
        delta,
      },
      'response.output_text.delta',
    ),
  ),
].join('');

// Chat Completions sends usage only in the last chunk; reasoning servers stream reasoning_content first.
const chatChunk = (delta: unknown) =>
  frame({
    id: 'chatcmpl-cancel',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'qwen3-32b',
    choices: [{ index: 0, delta, finish_reason: null }],
  });
const chatStart = [
  chatChunk({ role: 'assistant', content: '' }),
  chatChunk({ reasoning_content: 'The user wants a sum. ' }),
  chatChunk({ content: 'Let me add them.' }),
  chatChunk({
    tool_calls: [
      { index: 0, id: 'call_cut', type: 'function', function: { name: 'add', arguments: '{"a":' } },
    ],
  }),
].join('');

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

/**
 * One turn whose model call is cancelled once the stream has delivered its start: Ctrl-C 100 ms after
 * the first streamed event, by when the bytes sent in one write have all been read.
 */
async function cancelledTurn(
  provider: ProviderName,
  model: string,
  onModelCall?: (m: AssistantMessage) => void,
) {
  const controller = new AbortController();
  const recorded: AssistantMessage[] = [];
  let cancelling = false;
  const turn = runTurn([], 'Add 2 and 3.', {
    provider: await createProvider(provider),
    model,
    registry: new ToolRegistry(testTools().tools),
    maxTurns: 2,
    signal: controller.signal,
    onEvent: (e) => {
      // The first event that came from the stream itself (not the loop's own modelCallStart).
      if (cancelling || e.type === 'modelCallStart') return;
      cancelling = true;
      setTimeout(() => controller.abort(), 100);
    },
    onModelCall: (m) => {
      recorded.push(m);
      onModelCall?.(m);
    },
  });
  const error = await turn.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AbortedError);
  return { error: error as AbortedError, recorded };
}

/** Four characters a token, rounded up: the estimate for what was streamed or sent. */
const est = (chars: number) => Math.ceil(chars / 4);
/** The request body the server received, as the SDK serialised it. */
const sentChars = () => JSON.stringify(server.requests[0]!.body).length;

describe('a model call cancelled mid-stream', () => {
  it('anthropic: keeps message_start’s input and cache tokens, estimates output from what arrived', async () => {
    server.queue.push(stalled(anthropicStart));
    const { error, recorded } = await cancelledTurn('anthropic', 'claude-sonnet-5-5');

    const partial = error.partial!;
    expect(partial).toMatchObject({
      role: 'assistant',
      provider: 'anthropic',
      model: 'claude-sonnet-5-5-20261101',
      stopReason: 'aborted',
      content: [
        { type: 'text', text: 'Paris is the capital. ' },
        { type: 'toolCall', id: 'toolu_cut', name: 'add', argumentsText: '{"a": 2, "b' },
      ],
    });
    const streamed = 'Paris is the capital. '.length + '{"a": 2, "b'.length;
    expect(partial.usage).toEqual({
      input: 1200,
      cacheRead: 3000,
      cacheWrite: 500,
      output: est(streamed),
      reasoning: 0,
    });
    // The loop reports the cancelled call before rethrowing, exactly once.
    expect(recorded).toEqual([partial]);
  });

  it('openai (Responses): estimates the input from the request size, output from the streamed text', async () => {
    server.queue.push(stalled(responsesStart));
    const { error, recorded } = await cancelledTurn('openai', 'gpt-5-mini');

    const partial = error.partial!;
    const text = 'The first part of a long answer that was cut short';
    expect(partial).toMatchObject({
      provider: 'openai',
      model: 'gpt-5-mini-2025-08-07',
      stopReason: 'aborted',
      content: [{ type: 'text', text }],
    });
    expect(partial.usage).toEqual({
      input: est(sentChars()),
      cacheRead: 0,
      cacheWrite: 0,
      output: est(text.length),
      reasoning: 0,
    });
    // The request carries the system prompt's and the tools' size: far more than a handful of tokens.
    expect(partial.usage.input).toBeGreaterThan(100);
    expect(recorded).toEqual([partial]);
  });

  it('openai-compatible (Chat Completions): counts streamed reasoning, text and tool arguments', async () => {
    server.queue.push(stalled(chatStart));
    const { error, recorded } = await cancelledTurn('openai-compatible', 'qwen3-32b');

    const partial = error.partial!;
    expect(partial).toMatchObject({
      provider: 'openai-compatible',
      model: 'qwen3-32b',
      stopReason: 'aborted',
      content: [
        { type: 'text', text: 'Let me add them.' },
        { type: 'toolCall', id: 'call_cut', name: 'add', argumentsText: '{"a":' },
      ],
    });
    const streamed = 'The user wants a sum. '.length + 'Let me add them.'.length + '{"a":'.length;
    expect(partial.usage).toEqual({
      input: est(sentChars()),
      cacheRead: 0,
      cacheWrite: 0,
      output: est(streamed),
      reasoning: 0,
    });
    expect(recorded).toEqual([partial]);
  });

  it('before the server has answered: recorded as cancelled, its input estimated from the request', async () => {
    // The request was sent but no response had begun: what it would cost is not known, but a call in
    // flight is never left out of the ledger; its input is estimated from the request, its output none.
    server.queue.push(() => new Promise<FakeResponse>(() => {}));
    const controller = new AbortController();
    const recorded: AssistantMessage[] = [];
    const turn = runTurn([], 'hi', {
      provider: await createProvider('anthropic'),
      model: 'claude-sonnet-5-5',
      registry: new ToolRegistry([]),
      maxTurns: 1,
      signal: controller.signal,
      onModelCall: (m) => recorded.push(m),
    });
    setTimeout(() => controller.abort(), 150);
    const error = await turn.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AbortedError);
    expect((error as AbortedError).partial).toBeUndefined();
    expect(recorded).toHaveLength(1);
    expect(recorded[0]).toMatchObject({ stopReason: 'aborted', content: [] });
    expect(recorded[0]!.usage.input).toBeGreaterThan(0);
    expect(recorded[0]!.usage.output).toBe(0);
    expect(server.requests).toHaveLength(1);
  });

  it('reaches the ledger marked cancelled, and `agent cost --json` counts it', async () => {
    server.queue.push(stalled(anthropicStart));
    const path = tempDb();
    const store = await sqliteStore(path);
    // What the chat session does with every call the loop tells it about.
    const writes: Promise<unknown>[] = [];
    const { error } = await cancelledTurn('anthropic', 'claude-sonnet-5-5', (m) =>
      writes.push(
        store.ledger.record({
          command: 'chat',
          runId: 'session',
          step: 'chat',
          provider: m.provider,
          model: m.model,
          usage: m.usage,
          cancelled: m.stopReason === 'aborted',
        }),
      ),
    );
    await Promise.all(writes);
    await store.close();
    const m = error.partial!;

    const r = await runCli(['cost', '--json'], { env: { AGENT_DB: path } });
    expect(r.code).toBe(0);
    const { totals } = JSON.parse(r.stdout);
    expect(totals).toMatchObject({
      calls: 1,
      cancelledCalls: 1,
      inputTokens: 1200,
      cacheReadTokens: 3000,
      cacheWriteTokens: 500,
      outputTokens: m.usage.output,
    });
    expect(totals.costUsd).toBeGreaterThan(0);
  });
});
