import { subscribe, unsubscribe } from 'node:diagnostics_channel';

// Work that can wait for the network is best done while the process waits on it: after a request has
// been written out, not between making it and sending it (a request made now is sent only once the event
// loop turns again, after whatever runs meanwhile). undici, the HTTP client of Node's fetch (which the
// SDKs use) and of the undici package, says so on a diagnostics channel.
const SENT = 'undici:client:sendHeaders';

/**
 * Calls `run` once, on the event loop's turn after the process's next HTTP request has been sent, or
 * after `fallbackMs` if none is by then (never, if undefined).
 */
export function afterNextRequestSent(run: () => void, fallbackMs?: number): void {
  let done = false;
  const once = () => {
    if (done) return;
    done = true;
    unsubscribe(SENT, onSent);
    clearTimeout(timer);
    run();
  };
  // The body goes out right after the headers, in the same turn.
  const onSent = () => setImmediate(once);
  subscribe(SENT, onSent);
  const timer = fallbackMs === undefined ? undefined : setTimeout(once, fallbackMs).unref();
}

/**
 * `load`, started once the next request has been sent (or after a second without one), so that what a
 * later step needs loads while the process waits on the network. The returned function gives the
 * loading, starting it now if it has not started (no request was made meanwhile: everything was cached).
 */
export function loadAfterNextRequest<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  const start = () => {
    loading ??= load();
    return loading;
  };
  afterNextRequestSent(() => {
    start().catch(() => {});
  }, 1000);
  return start;
}
