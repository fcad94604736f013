import { loadAfterNextRequest } from '../request-sent.js';

// The modules web sources need (the search backends, the page reader with its HTML front end, and the
// HTTP client), loaded once per process; the PDF reader loads with the first PDF. Not at start-up: most
// runs begin with documents and a model request. The chain starts loading them while the plan request is
// in flight, so the first search goes out the moment the plan is parsed instead of after a module load on
// the critical path.

type WebModules = [typeof import('./search/index.js'), typeof import('./read.js')];

let loading: Promise<WebModules> | undefined;

export function loadWebModules(): Promise<WebModules> {
  loading ??= Promise.all([
    import('./search/index.js'),
    import('./read.js'),
    import('./net/safe-fetch.js').then((m) => m.loadHttpClient()),
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
