import { setTimeout as sleep } from 'node:timers/promises';

// The wait between retries of our own fetch clients (Ollama's chat and embeddings), as the SDKs wait.

/** Retried: connection failures, 408, 409, 429 and 5xx. */
export const retryableStatus = (status: number): boolean => [408, 409, 429].includes(status) || status >= 500;

/** 0.5 s, 1 s, 2 s (with jitter), or what Retry-After asks, up to a minute. */
export async function backOff(
  attempt: number,
  retryAfter: string | null,
  signal?: AbortSignal,
): Promise<void> {
  const asked = retryAfter === null ? Number.NaN : Number(retryAfter) * 1000;
  const ms = Number.isFinite(asked)
    ? Math.min(asked, 60_000)
    : 500 * 2 ** attempt * (0.75 + Math.random() / 2);
  // Cut short by an abort (the caller then sees its signal aborted); the listener goes with the wait.
  await sleep(ms, undefined, { signal }).catch(() => {});
}
