// The SDKs (and fetch) add an abort listener to the signal a request is given and never take it off. A
// research run hands its one signal to every call: each request left a listener (and its controller) on
// it for the run's life, and Node warned past ten; an embedding step makes thousands of requests.
// (AbortSignal.any does not help: on Node 20 its dependants stay in memory once a listener is on them.)
// So each request gets a signal of its own, and a caller's signal carries one listener whatever the
// number of requests, in flight or done, which aborts the requests in flight.

const inFlight = new WeakMap<AbortSignal, Set<AbortController>>();

export interface RequestSignal {
  /** The request's signal: aborted when the caller's is, or when `timeoutMs` has passed. */
  signal?: AbortSignal;
  /** Whether it was the time limit that aborted it. */
  readonly timedOut: boolean;
  /** The request is over (its stream too): the caller's signal lets go of it. */
  release(): void;
}

export function requestSignal(caller: AbortSignal | undefined, timeoutMs?: number): RequestSignal {
  if (!caller && timeoutMs === undefined) return { timedOut: false, release() {} };
  const controller = new AbortController();
  let timedOut = false;
  const timer =
    timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          timedOut = true;
          controller.abort(new DOMException('The request timed out.', 'TimeoutError'));
        }, timeoutMs);
  let requests: Set<AbortController> | undefined;
  if (caller?.aborted) controller.abort(caller.reason);
  else if (caller) {
    requests = inFlight.get(caller);
    if (!requests) {
      const created = new Set<AbortController>();
      requests = created;
      inFlight.set(caller, created);
      caller.addEventListener(
        'abort',
        () => {
          for (const c of created) c.abort(caller.reason);
          created.clear();
        },
        { once: true },
      );
    }
    requests.add(controller);
  }
  return {
    signal: controller.signal,
    get timedOut() {
      return timedOut;
    },
    release() {
      clearTimeout(timer);
      requests?.delete(controller);
    },
  };
}
