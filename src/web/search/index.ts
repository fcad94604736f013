import { WebError } from '../errors.js';
import { searchBrave } from './brave.js';
import { SEARCH_SETUP_HINT, type SearchConfig } from './config.js';
import type { WebFilters } from './filters.js';
import type { SearchResult } from './result.js';
import { searchSearxng } from './searxng.js';
import { searchTavily } from './tavily.js';

export {
  resolveSearch,
  SEARCH_BACKENDS,
  SEARCH_SETUP_HINT,
  SEARCH_VARIABLE,
  type SearchBackendName,
  type SearchConfig,
} from './config.js';
export { filterMiss, type WebFilters } from './filters.js';
export type { SearchResult } from './result.js';
export { normalizeUrl } from './url.js';

/** Every backend caps a request at 20 results; fewer than one is no search at all. */
const MAX_RESULTS = 20;

/**
 * One web search on the backend resolved by resolveSearch (once per run or chat; undefined when none is
 * configured, which fails here). Failures are WebErrors of one line that name the service. `filters` go
 * to the backend in its own form; results it returns outside them are the caller's to drop (see filterMiss).
 */
export async function searchWeb(
  query: string,
  count: number,
  search: SearchConfig | undefined,
  signal?: AbortSignal,
  filters?: WebFilters,
): Promise<SearchResult[]> {
  if (!search) throw new WebError(`Web search is not configured: ${SEARCH_SETUP_HINT}.`);
  const n = Math.min(MAX_RESULTS, Math.max(1, Math.floor(count)));
  switch (search.backend) {
    case 'brave':
      return searchBrave(query, n, search, signal, filters);
    case 'tavily':
      return searchTavily(query, n, search, signal, filters);
    case 'searxng':
      return searchSearxng(query, n, search, signal, filters);
  }
}
