import { ProviderError } from '../errors.js';

// What a server refuses of a request, and how the request is made to fit. Servers differ in how many
// texts a request may hold (text-embeddings-inference: 32 unless told otherwise) and in how long one
// text may be (a 512-token model; llama.cpp's batch). They say which with a 413, or a 400, 422 or 500
// whose message names the batch or the tokens; the request is then cut to fit, never dropped: the run
// keeps its vectors instead of falling back to keywords.

/** What an embedding request answers (kept here, where requests are fitted; embeddings.ts gives it out). */
export interface Embedding {
  /** Numbers, or float32s as they came (OpenAI's base64 answer): either way one vector per text. */
  vectors: ArrayLike<number>[];
  /** Input tokens as the server counted them, else estimated from the characters. */
  inputTokens: number;
}
type Embed = (texts: string[], signal?: AbortSignal) => Promise<Embedding>;

/** The texts are too many for one request, or one of them is too long for the model. */
type Refusal = { kind: 'count'; most: number } | { kind: 'length' };

/** A text is cut no shorter than this: below it, a refusal is not about its length. */
const SHORTEST_CUT = 64;

/**
 * `once` made to fit what the server takes. Too many texts: split to the size the server names (else
 * halved), kept for later requests. A text too long: its batch is halved until the text is alone, and it
 * is embedded by its first half (again, while still refused): the part of a passage a model can read
 * stands for it, as servers that truncate do. One call still answers every text, in order, its tokens
 * summed.
 */
export function fitting(once: Embed): Embed {
  let most = Number.POSITIVE_INFINITY;
  const inParts = async (texts: string[], size: number, signal?: AbortSignal): Promise<Embedding> => {
    const parts: Embedding[] = [];
    for (let i = 0; i < texts.length; i += size) parts.push(await embed(texts.slice(i, i + size), signal));
    return {
      vectors: parts.flatMap((p) => p.vectors),
      inputTokens: parts.reduce((n, p) => n + p.inputTokens, 0),
    };
  };
  const embed = async (texts: string[], signal?: AbortSignal): Promise<Embedding> => {
    // Cut at the size known now: a part refused in turn lowers `most` for the parts after it.
    if (texts.length > most) return inParts(texts, most, signal);
    try {
      return await once(texts, signal);
    } catch (error) {
      const refusal = refusalOf(error, texts.length);
      if (refusal?.kind === 'count' && texts.length > 1) {
        most = Math.min(most, refusal.most);
        return embed(texts, signal);
      }
      if (refusal?.kind !== 'length') throw error;
      if (texts.length > 1) return inParts(texts, Math.ceil(texts.length / 2), signal);
      const text = texts[0]!;
      if (text.length < 2 * SHORTEST_CUT) throw error;
      return embed([text.slice(0, Math.ceil(text.length / 2))], signal);
    }
  };
  return embed;
}

/** What a refusal of `sent` texts is about; undefined when it is about neither their number nor length. */
function refusalOf(error: unknown, sent: number): Refusal | undefined {
  if (!(error instanceof ProviderError)) return undefined;
  const { status, message } = error;
  if (status !== 400 && status !== 413 && status !== 422 && status !== 500) return undefined;
  const aboutBatch = /batch|too many (?:inputs|texts|items)|number of (?:inputs|texts)|input (?:array|list)/i;
  const aboutLength = /tokens?\b|too long|context length|input length|too large to process/i;
  if (aboutBatch.test(message) && sent > 1) {
    const named = Number(/max(?:imum)?\D{0,40}?(\d+)/i.exec(message)?.[1]);
    return {
      kind: 'count',
      most: Number.isInteger(named) && named >= 1 && named < sent ? named : Math.floor(sent / 2),
    };
  }
  if (aboutLength.test(message)) return { kind: 'length' };
  // A proxy's bare 413: the request's body is too large, however it is cut.
  if (status === 413) return sent > 1 ? { kind: 'count', most: Math.floor(sent / 2) } : { kind: 'length' };
  return undefined;
}
