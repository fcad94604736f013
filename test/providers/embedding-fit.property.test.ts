import fc from 'fast-check';
import { expect, it } from 'vitest';
import { ProviderError } from '../../src/errors.js';
import { fitting } from '../../src/providers/embedding-fit.js';

// Whatever a server takes — texts a request, characters a text — and however it says so, a request made
// to fit answers every text, in order: with the text's own vector where the server takes it whole, else
// with that of its first part the server takes (halved until taken). Nothing is embedded twice but the
// parts a refusal asked for again.

/** A server in memory: refuses as text-embeddings-inference, or as a proxy, or as OpenAI does. */
function server(most: number, longest: number, says: 'tei' | 'proxy' | 'openai') {
  const requests: string[][] = [];
  const embed = async (texts: string[]) => {
    requests.push(texts);
    if (texts.length > most)
      throw says === 'proxy'
        ? new ProviderError(
            'The request is too large for the embeddings server (413): Request Entity Too Large',
            413,
          )
        : new ProviderError(
            `the embeddings server returned 422: batch size ${texts.length} > maximum allowed batch size ${most}`,
            422,
          );
    const over = texts.find((t) => t.length > longest);
    if (over !== undefined)
      throw says === 'openai'
        ? new ProviderError(
            `OpenAI refused the request (400): This model's maximum context length is ${longest} tokens, however you requested ${over.length} tokens.`,
            400,
          )
        : new ProviderError(
            `The request is too large for the embeddings server (413): \`inputs\` must have less than ${longest} tokens. Given: ${over.length}`,
            413,
          );
    return { vectors: texts.map((t) => [t.length, t.charCodeAt(0) || 0]), inputTokens: texts.length };
  };
  return { embed, requests };
}

/** The part of `text` a server taking `longest` characters embeds it by. */
const taken = (text: string, longest: number) => {
  let part = text;
  while (part.length > longest) part = part.slice(0, Math.ceil(part.length / 2));
  return part;
};

it('answers every text, in order, by the text or its first part the server takes', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.string({ minLength: 1, maxLength: 400 }), { minLength: 1, maxLength: 40 }),
      fc.integer({ min: 1, max: 50 }),
      fc.integer({ min: 128, max: 500 }),
      fc.constantFrom('tei' as const, 'proxy' as const, 'openai' as const),
      async (texts, most, longest, says) => {
        const s = server(most, longest, says);
        const answer = await fitting(s.embed)(texts);
        const want = texts.map((t) => taken(t, longest));
        expect(answer.vectors).toEqual(want.map((t) => [t.length, t.charCodeAt(0) || 0]));
        // Every request the server took held at most what it takes.
        const accepted = s.requests.filter((r) => r.length <= most && r.every((t) => t.length <= longest));
        expect(accepted.flat()).toEqual(want);
      },
    ),
    { numRuns: 200 },
  );
});

it('keeps to a batch size learned, and not to one a long text seemed to ask for', async () => {
  const s = server(3, 100_000, 'tei');
  const embed = fitting(s.embed);
  await embed(Array.from({ length: 8 }, (_, i) => `text ${i}`));
  s.requests.length = 0;
  await embed(Array.from({ length: 7 }, (_, i) => `again ${i}`));
  expect(s.requests.map((r) => r.length)).toEqual([3, 3, 1]);
  const long = server(64, 200, 'tei');
  const embedLong = fitting(long.embed);
  await embedLong(['x'.repeat(300), 'short', 'also short']);
  long.requests.length = 0;
  await embedLong(['one', 'two', 'three', 'four']);
  expect(long.requests.map((r) => r.length)).toEqual([4]);
});

it('still fails on what no cut can mend: a short text refused, or a refusal about something else', async () => {
  const s = server(64, 10, 'tei');
  await expect(fitting(s.embed)(['a text of some forty characters, refused'])).rejects.toThrow(
    /less than 10 tokens/,
  );
  const other = fitting(async () => {
    throw new ProviderError('the embeddings server returned 422: unknown model', 422);
  });
  await expect(other(['a', 'b'])).rejects.toThrow(/unknown model/);
});
