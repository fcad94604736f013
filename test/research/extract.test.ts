import { afterEach, describe, expect, it } from 'vitest';
import { AbortedError, ProviderError } from '../../src/errors.js';
import { promptTokens } from '../../src/providers/context.js';
import { CUT_NOTE, extractFacts } from '../../src/research/chain/extract.js';
import { modelCaller, RunLedger } from '../../src/research/model-call.js';
import { FACTS_SCHEMA } from '../../src/research/planning/facts.js';
import type { ResearchEvent, ResearchOptions } from '../../src/research/types.js';
import type { SqliteStore } from '../../src/store/sqlite/store.js';
import type { ModelRequest, Provider } from '../../src/types.js';
import { reply, scriptedProvider, text } from '../support/scripted-provider.js';
import { sqliteStoreNow } from '../support/stores.js';
import { vllmRefusal } from '../support/vllm-server.js';

// One source's extraction through the run's model caller, with a scripted local model: a source longer
// than the context is read in pieces, a refusal is fitted, a cut or a loop is said, an unreadable reply
// is asked again once.

let store: SqliteStore | undefined;
afterEach(async () => {
  await store?.close();
  store = undefined;
});

const QUESTION = 'What is the refund limit?';

/** A provider from a script, with a context (as a local server has), its name as given. */
function local(
  script: (request: ModelRequest, index: number) => ReturnType<typeof reply>,
  context?: number,
): Provider & { requests: ModelRequest[] } {
  const scripted = scriptedProvider(script);
  return { ...scripted, name: 'ollama', contextTokens: async () => context };
}

function setup(provider: Provider) {
  store = sqliteStoreNow(':memory:');
  const events: ResearchEvent[] = [];
  const o = { question: QUESTION, store, contentDir: '/none', env: {} } as unknown as ResearchOptions;
  const call = modelCaller(o, provider, 'run-1', new RunLedger(), (e) => events.push(e));
  const extract = (body: string) =>
    extractFacts({
      call,
      provider,
      model: 'llama3.1',
      question: QUESTION,
      source: { title: 'Handbook', location: '/docs/handbook.md', status: 'read', text: body },
      emit: (e) => events.push(e),
    });
  const notices = () => events.flatMap((e) => (e.type === 'notice' ? [e.message] : []));
  return { extract, notices };
}

/** A long handbook with one fact near its end. */
const handbook = (paragraphs: number) =>
  Array.from({ length: paragraphs }, (_, i) =>
    i === paragraphs - 3
      ? 'Refunds up to $200 need no approval; above that a team lead approves.'
      : `Section ${i}: records are kept for seven years and reviewed every quarter by the company's auditors.`,
  ).join('\n\n');

const factsIn = (prompt: string) =>
  prompt.includes('$200') ? '{"facts": ["Refunds up to $200 need no approval"]}' : '{"facts": []}';
const userPrompt = (r: ModelRequest) => r.messages[0]!.content as string;

describe('extraction fitted to the context', () => {
  it('reads a source longer than the context in pieces that fit, every piece once, facts merged', async () => {
    const provider = local((r) => reply([text(factsIn(userPrompt(r)))]), 4096);
    const { extract, notices } = setup(provider);
    const body = handbook(400);
    const out = await extract(body);
    expect(out).toEqual({ facts: '- Refunds up to $200 need no approval', whole: true });
    expect(notices()).toEqual([]);
    const requests = provider.requests;
    expect(requests.length).toBeGreaterThan(3);
    for (const [i, r] of requests.entries()) {
      expect(promptTokens(r) + r.maxTokens!).toBeLessThanOrEqual(4096);
      expect(r.jsonSchema).toEqual(FACTS_SCHEMA);
      expect(userPrompt(r)).toContain(`(Part ${i + 1} of ${requests.length} of a long source`);
    }
    const pieces = requests.map((r) => /\n---\n([\s\S]*)\n---$/.exec(userPrompt(r))![1]);
    expect(pieces.join('')).toBe(body);
  });

  it('a piece the server refuses as longer than its context is read again in pieces that fit what it said', async () => {
    const provider = local((r) => {
      const tokens = promptTokens(r);
      if (tokens > 3000)
        throw new ProviderError(`refused (400): ${vllmRefusal(3000, tokens, r.maxTokens!).message}`, 400);
      return reply([text(factsIn(userPrompt(r)))]);
    }, 16_384);
    const { extract } = setup(provider);
    const out = await extract(handbook(300));
    expect(out.facts).toBe('- Refunds up to $200 need no approval');
    const sizes = provider.requests.map((r) => promptTokens(r));
    expect(sizes.some((n) => n > 3000)).toBe(true);
    expect(sizes.filter((n) => n <= 3000).length).toBeGreaterThan(2);
  });

  it('a refusal of the reply budget is asked again with the budget the server leaves', async () => {
    const provider = local((r) => {
      if (r.maxTokens! + 300 > 2500)
        throw new ProviderError(`refused (400): ${vllmRefusal(2500, 300, r.maxTokens!).message}`, 400);
      return reply([text('{"facts": ["a"]}')]);
    });
    const { extract } = setup(provider);
    expect((await extract('short source')).facts).toBe('- a');
    expect(provider.requests.map((r) => r.maxTokens)).toEqual([8192, 2136]);
  });

  it('a prompt the server cut is said in one line, and the source’s facts say it was read in part', async () => {
    // The server read 500 tokens of a prompt of thousands, and its context is 2,048.
    const provider = local(
      () => ({
        ...reply([text('{"facts": ["Section 1: records"]}')]),
        usage: { input: 500, cacheRead: 0, cacheWrite: 0, output: 9, reasoning: 0 },
      }),
      2048,
    );
    provider.contextTokens = async () => undefined;
    const { extract, notices } = setup(provider);
    const out = await extract(handbook(100));
    expect(out.whole).toBe(false);
    expect(out.facts).toBe(`- Section 1: records\n${CUT_NOTE}`);
    expect(notices()).toEqual([
      expect.stringMatching(
        /^The server cut the extract prompt for "Handbook": it read 500 of about [\d,]+ tokens, so the reply is from part of it\. To fix: use a model with a longer context, or give the server more memory\.$/,
      ),
    ]);
  });

  it('an unreadable reply is asked once more, showing it; twice unreadable, no facts, said', async () => {
    const fixed = local((_r, i) => reply([text(i === 0 ? '{"facts": 12}' : '{"facts": ["b"]}')]));
    const first = setup(fixed);
    expect((await first.extract('short')).facts).toBe('- b');
    const repair = fixed.requests[1]!;
    expect(repair.messages).toHaveLength(3);
    expect(repair.messages[2]).toMatchObject({
      role: 'user',
      content: expect.stringMatching(/could not be read/),
    });

    const broken = local(() => reply([text('{{{')]));
    const second = setup(broken);
    expect(await second.extract('short')).toEqual({ facts: 'NO RELEVANT FACTS', whole: false });
    expect(second.notices()).toEqual([
      'The extraction of "Handbook" gave no readable facts, asked twice: none are taken from it.',
    ]);
  });

  it('a reply cut at its output limit is asked again with twice the room', async () => {
    const provider = local((_r, i) =>
      reply([text(i === 0 ? '{"facts": ["a", "b' : '{"facts": ["a", "b"]}')], i === 0 ? 'length' : 'stop'),
    );
    const { extract, notices } = setup(provider);
    expect(await extract('short')).toEqual({ facts: '- a\n- b', whole: true });
    expect(provider.requests.map((r) => r.maxTokens)).toEqual([8192, 16_384]);
    expect(notices()).toEqual([]);
  });

  it('a reply that repeats itself is stopped, said, and read up to the repeats', async () => {
    const provider: Provider & { sent: number } = {
      name: 'ollama',
      sent: 0,
      async complete(request) {
        let streamed = '{"facts": ["Refunds up to $200 need no approval", ';
        request.onEvent?.({ type: 'text', delta: streamed });
        for (let i = 0; i < 10_000; i++) {
          if (request.signal?.aborted) throw new AbortedError();
          const delta = '"Records are kept for seven years and reviewed every quarter", ';
          streamed += delta;
          this.sent += delta.length;
          request.onEvent?.({ type: 'text', delta });
        }
        return reply([text(streamed)]);
      },
    };
    const { extract, notices } = setup(provider);
    const out = await extract('short');
    expect(provider.sent).toBeLessThan(1000);
    expect(out.whole).toBe(false);
    expect(out.facts).toContain('- Refunds up to $200 need no approval');
    expect(notices()).toEqual([
      'The extract reply for "Handbook" was repeating itself (the same 200 characters three times): stopped there, and what came before the repeats is used.',
    ]);
  });
});
