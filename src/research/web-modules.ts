import { afterNextRequestSent } from '../request-sent.js';

// The modules web sources need (the search backends, the page reader with its HTML front end, and the
// HTTP client), loaded once per process; the PDF reader loads with the first PDF. Not at start-up: most
// runs begin with documents and a model request. The chain starts loading them while the plan request is
// in flight, so the first search goes out the moment the plan is parsed instead of after a module load on
// the critical path.

type WebModules = [typeof import('../tools/search/index.js'), typeof import('../tools/read-url.js')];

let loading: Promise<WebModules> | undefined;

export function loadWebModules(): Promise<WebModules> {
  loading ??= Promise.all([
    import('../tools/search/index.js'),
    import('../tools/read-url.js'),
    import('../tools/net/safe-fetch.js').then((m) => m.loadHttpClient()),
    import('../formats/html/html-to-text.js'),
  ]).then(([search, read]) => [search, read] as WebModules);
  return loading;
}

/**
 * Starts loading once the next request (the plan's) has been sent, so as not to hold it up; a failure
 * surfaces where the modules are used, not here.
 */
export function preloadWebModules(): void {
  loadAfterNextRequest(loadWebModules);
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
