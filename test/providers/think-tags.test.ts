import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createOpenAIChatProvider } from '../../src/providers/openai-chat.js';
import { splitThink, type ThinkPiece, ThinkSplitter } from '../../src/providers/think-tags.js';
import type { StreamEvent } from '../../src/types.js';
import { sse, startFakeServer } from '../support/fake-server.js';
import { chatSse } from '../support/sse-builders.js';

/** Streams `chunks` through one splitter and joins what came out, by kind. */
function stream(chunks: string[]): { text: string; reasoning: string; pieces: ThinkPiece[] } {
  const splitter = new ThinkSplitter();
  const pieces = [...chunks.flatMap((c) => splitter.push(c)), ...splitter.end()];
  const join = (kind: ThinkPiece['kind']) =>
    pieces
      .filter((p) => p.kind === kind)
      .map((p) => p.text)
      .join('');
  return { text: join('text'), reasoning: join('reasoning'), pieces };
}

const CASES: [string, { text: string; reasoning: string }][] = [
  ['<think>The user wants 2+2.</think>\n\nIt is 4.', { text: 'It is 4.', reasoning: 'The user wants 2+2.' }],
  [
    'No reasoning at all, a < b and a <tag>.',
    { text: 'No reasoning at all, a < b and a <tag>.', reasoning: '' },
  ],
  // Cut off at the output limit while still thinking: all of it is reasoning, none is answer.
  [
    '<think>Let me think about refunds and limits',
    { text: '', reasoning: 'Let me think about refunds and limits' },
  ],
  // The template opened the block in the prompt: only its end arrives, and at least the tag goes.
  ['Planning quietly.</think>\nThe plan.', { text: 'Planning quietly.\nThe plan.', reasoning: '' }],
  ['Before <think>aside</think> after.', { text: 'Before after.', reasoning: 'aside' }],
  ['A text ending in <thi', { text: 'A text ending in <thi', reasoning: '' }],
];

describe('the <think> splitter', () => {
  it.each(CASES)('splits %j the same at every split point', (input, expected) => {
    expect(splitThink(input)).toEqual(expected);
    for (let i = 0; i <= input.length; i++) {
      const { text, reasoning } = stream([input.slice(0, i), input.slice(i)]);
      expect({ at: i, text, reasoning }).toEqual({ at: i, ...expected });
    }
    // And one character at a time, as some servers stream.
    const each = stream([...input]);
    expect({ text: each.text, reasoning: each.reasoning }).toEqual(expected);
  });

  it('never emits a piece that holds a tag, even at two split points', () => {
    const input = '<think>a</think>b<think>c</think>d';
    for (let i = 0; i <= input.length; i++)
      for (let j = i; j <= input.length; j++) {
        const { pieces } = stream([input.slice(0, i), input.slice(i, j), input.slice(j)]);
        expect(pieces.some((p) => /<\/?think>/.test(p.text))).toBe(false);
        expect(stream([input.slice(0, i), input.slice(i, j), input.slice(j)]).text).toBe('bd');
      }
  });
});

describe('openai-chat with a local reasoning model', () => {
  let server: Awaited<ReturnType<typeof startFakeServer>>;
  beforeEach(async () => {
    server = await startFakeServer();
  });
  afterEach(async () => {
    await server.close();
  });

  it('streams inline reasoning as reasoning events and keeps it out of the message', async () => {
    // chatSse cuts the text into 12-character chunks, so both tags arrive split.
    server.queue.push(
      sse(chatSse({ text: '<think>Refunds: check the $200 limit first.</think>\n\nUp to $200 [1].' })),
    );
    const provider = createOpenAIChatProvider({ name: 'ollama', baseURL: `${server.url}/v1`, apiKey: 'x' });
    const events: StreamEvent[] = [];
    const reply = await provider.complete({
      model: 'qwen3',
      messages: [{ role: 'user', content: 'How much?' }],
      onEvent: (e) => events.push(e),
    });
    expect(reply.content).toEqual([{ type: 'text', text: 'Up to $200 [1].' }]);
    const of = (type: string) =>
      events
        .filter((e) => e.type === type)
        .map((e) => (e as { delta: string }).delta)
        .join('');
    expect(of('text')).toBe('Up to $200 [1].');
    expect(of('reasoning')).toBe('Refunds: check the $200 limit first.');
  });
});
