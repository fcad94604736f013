import { promptTokens, SMALLEST_CONTEXT, textTokens } from '../providers/context.js';
import type { Provider } from '../types.js';
import { EXTRACT_SYSTEM, extractPrompt } from './chain/extract-prompt.js';
import type { Source } from './sources.js';

// Requests made to fit a model's context: a source too long for one extraction is read in pieces, each
// request with room for its reply. Token counts are estimates (providers/context.ts), on the high side.

/**
 * The most context one extraction asks for, whatever the model has: a piece of a source this size is read
 * well by a small model, and a local server's memory for it stays modest (docs/local-models.md).
 */
export const EXTRACT_CONTEXT = 16_384;
/** Tokens left free in each fitted request, for the chat template and the estimate's error. */
const MARGIN = 256;
/** A piece smaller than this holds too little: the reply's budget gives way first (down to 256 tokens). */
const SMALL_PIECE = 400;

/**
 * The model's context, asked of the provider only when a prompt of `prompt` tokens might not fit the
 * smallest context any server has (a local server is then asked once per model); undefined when unknown
 * or not needed.
 */
export async function windowFor(
  provider: Provider,
  model: string,
  prompt: number,
): Promise<number | undefined> {
  if (!provider.contextTokens || prompt <= SMALLEST_CONTEXT) return undefined;
  return provider.contextTokens(model);
}

/** An output budget that leaves room for the prompt: `wanted`, but at most a quarter of the window. */
export function outputBudget(wanted: number, window: number | undefined): number {
  return window === undefined ? wanted : Math.max(256, Math.min(wanted, Math.floor(window / 4)));
}

/**
 * `text` in pieces of at most `max` characters, each cut at the end of a paragraph, a line, a sentence
 * or a word where one is in its second half. Joined, the pieces are the text: every character is in
 * exactly one piece (no overlap, so a fact split by a cut is read as two halves; cutting at paragraphs
 * first makes that rare).
 */
export function splitText(text: string, max: number): string[] {
  const size = Math.max(2, Math.floor(max));
  const pieces: string[] = [];
  let rest = text;
  while (rest.length > size) {
    const head = rest.slice(0, size);
    const half = Math.floor(size / 2);
    const after = (i: number, len: number) => (i >= half ? i + len : -1);
    let cut = after(head.lastIndexOf('\n\n'), 2);
    if (cut < 0) cut = after(head.lastIndexOf('\n'), 1);
    if (cut < 0)
      cut = after(Math.max(head.lastIndexOf('. '), head.lastIndexOf('? '), head.lastIndexOf('! ')), 2);
    if (cut < 0) cut = after(head.lastIndexOf(' '), 1);
    if (cut < 0) cut = size;
    // Never between the two halves of a surrogate pair (an emoji, a rare CJK character).
    const code = rest.charCodeAt(cut - 1);
    if (code >= 0xd800 && code <= 0xdbff) cut--;
    pieces.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  if (rest || pieces.length === 0) pieces.push(rest);
  return pieces;
}

/**
 * `text` in splitText's pieces of at most `tokens` estimated tokens each: sized by the text's own density
 * (numbers or Chinese have more tokens than their characters suggest), a denser piece split again.
 */
export function splitToFit(text: string, tokens: number): string[] {
  // Pieces sized by this text's own characters per token, so that few need splitting again.
  const perToken = text.length / Math.max(1, textTokens(text));
  return splitText(text, Math.max(1, Math.floor(tokens * perToken * 0.97))).flatMap((piece) =>
    textTokens(piece) <= tokens || piece.length <= 1 ? [piece] : splitToFit(piece, tokens),
  );
}

export interface ExtractionPlan {
  /** Each request's prompt and the piece of the source it carries. */
  parts: { prompt: string; text: string }[];
  maxTokens: number;
}

/**
 * The extraction requests for a source on a model with `window` tokens of context (undefined: unknown,
 * one request as before). Each request's prompt and output budget fit the window (or EXTRACT_CONTEXT,
 * when smaller); the pieces are the source's text, split by splitText.
 */
export function planExtraction(
  question: string,
  source: Pick<Source, 'title' | 'location' | 'status' | 'text'>,
  window: number | undefined,
  /** The step's usual output budget (MAX_TOKENS.extract). */
  wanted: number,
): ExtractionPlan {
  const whole = { prompt: extractPrompt(question, source), text: source.text };
  if (window === undefined) return { parts: [whole], maxTokens: wanted };
  const room = Math.min(window, EXTRACT_CONTEXT);
  let maxTokens = outputBudget(wanted, room);
  const sized = (prompt: string) =>
    promptTokens({ system: EXTRACT_SYSTEM, messages: [{ role: 'user', content: prompt }] });
  if (sized(whole.prompt) + maxTokens + MARGIN <= room) return { parts: [whole], maxTokens };
  // The prompt around a piece, with the longest part label it can have; one token more for rounding.
  const fixed = sized(extractPrompt(question, { ...source, text: '' }, { n: 99_999, of: 99_999 })) + 1;
  const free = () => room - maxTokens - MARGIN - fixed;
  if (free() < SMALL_PIECE) maxTokens = Math.max(256, maxTokens - (SMALL_PIECE - free()));
  // A question too long for the window leaves no room at all: pieces of 64 tokens, and the server says.
  const tokens = Math.max(64, free());
  const pieces = splitToFit(source.text, tokens);
  return {
    maxTokens,
    parts: pieces.map((text, i) => ({
      text,
      prompt: extractPrompt(question, { ...source, text }, { n: i + 1, of: pieces.length }),
    })),
  };
}
