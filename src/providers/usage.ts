import { addUsage, type Usage } from '../types.js';

// Each vendor counts tokens differently; these turn their counts into buckets that never overlap.

interface AnthropicUsageLike {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
}

/**
 * Anthropic's `input_tokens` already excludes cache reads and writes. When the server ran several
 * iterations in one call (compaction, server tools), `iterations` lists each one and the bill is their sum.
 */
export function fromAnthropicUsage(
  u: AnthropicUsageLike & { iterations?: AnthropicUsageLike[] | null },
): Usage {
  if (u.iterations?.length) {
    return u.iterations.map((i) => fromAnthropicUsage(i)).reduce(addUsage);
  }
  return {
    input: u.input_tokens ?? 0,
    cacheRead: u.cache_read_input_tokens ?? 0,
    cacheWrite: u.cache_creation_input_tokens ?? 0,
    output: u.output_tokens ?? 0,
    reasoning: 0,
  };
}

interface ResponsesUsageLike {
  input_tokens?: number | null;
  output_tokens?: number | null;
  input_tokens_details?: { cached_tokens?: number | null } | null;
  output_tokens_details?: { reasoning_tokens?: number | null } | null;
}

/** OpenAI Responses: `input_tokens` includes `cached_tokens`; `output_tokens` includes `reasoning_tokens`. */
export function fromOpenAIResponsesUsage(u: ResponsesUsageLike): Usage {
  const cached = u.input_tokens_details?.cached_tokens ?? 0;
  return {
    input: Math.max(0, (u.input_tokens ?? 0) - cached),
    cacheRead: cached,
    cacheWrite: 0,
    output: u.output_tokens ?? 0,
    reasoning: u.output_tokens_details?.reasoning_tokens ?? 0,
  };
}

interface ChatUsageLike {
  prompt_tokens?: number | null;
  completion_tokens?: number | null;
  prompt_tokens_details?: { cached_tokens?: number | null } | null;
  completion_tokens_details?: { reasoning_tokens?: number | null } | null;
}

/** Chat Completions: the same rules under the older names. */
export function fromOpenAIChatUsage(u: ChatUsageLike): Usage {
  const cached = u.prompt_tokens_details?.cached_tokens ?? 0;
  return {
    input: Math.max(0, (u.prompt_tokens ?? 0) - cached),
    cacheRead: cached,
    cacheWrite: 0,
    output: u.completion_tokens ?? 0,
    reasoning: u.completion_tokens_details?.reasoning_tokens ?? 0,
  };
}
