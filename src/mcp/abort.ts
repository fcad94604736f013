// The SDK adds an abort listener to a request's signal and never removes it, so calls made under one
// turn's signal piled listeners onto it: ten parallel calls made Node print MaxListenersExceededWarning.
// Each call gets a signal of its own instead, and the turn's signal holds one listener, whatever the
// number of calls, removed when the last of them ends.

interface Followers {
  calls: Set<AbortController>;
  onAbort: () => void;
}

const following = new WeakMap<AbortSignal, Followers>();

/** Runs `run` with a signal of its own that aborts when `parent` does, and stops following it after. */
export async function withOwnSignal<T>(
  parent: AbortSignal,
  run: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const own = new AbortController();
  if (parent.aborted) {
    own.abort(parent.reason);
    return run(own.signal);
  }
  let f = following.get(parent);
  if (!f) {
    const calls = new Set<AbortController>();
    f = {
      calls,
      onAbort: () => {
        for (const c of calls) c.abort(parent.reason);
      },
    };
    following.set(parent, f);
    parent.addEventListener('abort', f.onAbort, { once: true });
  }
  f.calls.add(own);
  try {
    return await run(own.signal);
  } finally {
    f.calls.delete(own);
    if (f.calls.size === 0) {
      parent.removeEventListener('abort', f.onAbort);
      following.delete(parent);
    }
  }
}
