import type { AssistantMessage, AssistantPart, ProviderName, Usage } from '../types.js';

// A model call cancelled mid-stream is billed all the same: the provider has read the whole prompt and
// charges for every token it generated before the connection closed. What the stream told us is kept;
// what it did not is estimated, so that the ledger errs towards too much rather than too little.

/** About four characters a token: the usual rule of thumb for English text and JSON. An estimate. */
export const estimateTokens = (chars: number): number => Math.ceil(chars / 4);

/** Text, reasoning and tool arguments alike are output tokens. */
const streamedChars = (content: AssistantPart[]): number =>
  content.reduce((n, p) => n + (p.type === 'toolCall' ? p.argumentsText.length : p.text.length), 0);

export interface CancelledCall {
  provider: ProviderName;
  model: string;
  /** What had arrived: text, tool calls (arguments possibly cut short), reasoning. */
  content: AssistantPart[];
  /** Streamed reasoning that is shown but not kept in `content` (Chat Completions servers). */
  unkeptChars?: number;
  /** Usage the stream reported before the cancel (Anthropic's message_start); undefined if none. */
  reported?: Usage;
  /** The request body as sent, for estimating the input when the stream reported none. */
  requestBody: unknown;
}

/**
 * The assistant message of a cancelled call, `stopReason: 'aborted'`, with the usage known at the cancel.
 * Input (and cache) tokens come from the stream where the API sends them at its start; otherwise the
 * input is estimated from the size of the request, counted uncached since cache hits are unknown.
 * Output is estimated from the streamed text, tool arguments and visible reasoning, and never less than
 * a count the stream reported; reasoning that an API keeps hidden cannot be counted.
 */
export function cancelledMessage(call: CancelledCall): AssistantMessage {
  const output = estimateTokens(streamedChars(call.content) + (call.unkeptChars ?? 0));
  const usage: Usage = call.reported
    ? { ...call.reported, output: Math.max(call.reported.output, output) }
    : {
        input: estimateTokens(JSON.stringify(call.requestBody).length),
        cacheRead: 0,
        cacheWrite: 0,
        output,
        reasoning: 0,
      };
  return {
    role: 'assistant',
    content: call.content,
    provider: call.provider,
    model: call.model,
    usage,
    stopReason: 'aborted',
  };
}
