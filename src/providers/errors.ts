import { AbortedError, AgentError, ProviderError } from '../errors.js';
import type { AssistantMessage } from '../types.js';

// Both SDKs throw errors of the same shape (status, error body, a named class); this turns them into
// one line a person can act on. Retryable failures (429, 5xx, connection) arrive here only after the
// SDK's own retries are spent.

interface ApiErrorLike {
  name?: string;
  status?: number;
  message?: string;
  error?: { message?: string; error?: { message?: string } };
}

const KEY_VARIABLE: Record<string, string> = {
  Anthropic: 'ANTHROPIC_API_KEY',
  OpenAI: 'OPENAI_API_KEY',
};

const BASE_URL_VARIABLE: Record<string, string> = {
  Anthropic: 'ANTHROPIC_BASE_URL',
  OpenAI: 'OPENAI_BASE_URL',
};

/**
 * `partial` gives the message of a call cancelled after its stream had begun (see partial.ts), which the
 * cancellation then carries to the ledger.
 */
export function translateError(
  error: unknown,
  vendor: string,
  model: string,
  signal?: AbortSignal,
  partial?: () => AssistantMessage,
  /** The variable that set the server's address, where it is not the vendor's usual one. */
  urlVariable?: string,
): AgentError {
  // A cancelled request can surface as any kind of network error: the cancellation is what happened.
  if (signal?.aborted) return new AbortedError({ partial: partial?.() });
  if (error instanceof AgentError) return error;
  const e = (error ?? {}) as ApiErrorLike;
  const kind = (error as object | null)?.constructor?.name ?? e.name ?? '';
  if (kind === 'APIUserAbortError' || e.name === 'AbortError')
    return new AbortedError({ partial: partial?.() });
  const detail = e.error?.error?.message ?? e.error?.message ?? e.message ?? String(error);
  const key = KEY_VARIABLE[vendor] ?? 'the API key';
  if (kind === 'APIConnectionTimeoutError') {
    return new ProviderError(
      `${vendor} did not answer in time (after retries). Try again, or check the server.`,
    );
  }
  if (kind === 'APIConnectionError') {
    return new ProviderError(
      `Could not reach ${vendor}: ${String(detail).replace(/\.+$/, '')}. Check the network and ${urlVariable ?? BASE_URL_VARIABLE[vendor] ?? 'OPENAI_BASE_URL (or OLLAMA_HOST)'}.`,
    );
  }
  switch (e.status) {
    case 400:
      return new ProviderError(`${vendor} refused the request (400): ${detail}`, 400);
    case 401:
      return new ProviderError(`${vendor} rejected the API key (401): ${detail}. Check ${key}.`, 401);
    case 403:
      return new ProviderError(
        `${vendor} denied access (403): ${detail}. Check that ${key} may use ${model}.`,
        403,
      );
    case 404:
      return new ProviderError(
        `${vendor} has no model "${model}" here (404): ${detail}. Choose another with --model.`,
        404,
      );
    case 413:
      return new ProviderError(`The request is too large for ${vendor} (413): ${detail}`, 413);
    case 429:
      return new ProviderError(
        `${vendor} is rate limiting this key, still after retries (429): ${detail}. Wait and try again.`,
        429,
      );
  }
  if (e.status && e.status >= 500) {
    return new ProviderError(
      `${vendor} had a server error (${e.status}), still after retries: ${detail}`,
      e.status,
    );
  }
  if (e.status) return new ProviderError(`${vendor} returned ${e.status}: ${detail}`, e.status);
  return new ProviderError(`${vendor} call failed: ${detail}`);
}

/**
 * A stream that ended without its final event: a cancellation if the user asked for one, otherwise a
 * broken reply that must not be mistaken for a complete one.
 */
export function streamEnded(
  vendor: string,
  signal?: AbortSignal,
  partial?: () => AssistantMessage,
): AgentError {
  if (signal?.aborted) return new AbortedError({ partial: partial?.() });
  return new ProviderError(`The stream from ${vendor} ended before the reply was complete. Try again.`);
}
