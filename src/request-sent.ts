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
