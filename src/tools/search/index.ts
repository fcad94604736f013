import { ToolError } from '../tool.js';
import { searchBrave } from './brave.js';
import { envValue, SEARCH_SETUP_HINT, searchBackendName } from './config.js';
import type { WebFilters } from './filters.js';
import type { SearchResult } from './result.js';
import { searchSearxng } from './searxng.js';
import { searchTavily } from './tavily.js';

export {
  SEARCH_BACKENDS,
  SEARCH_SETUP_HINT,
  SEARCH_VARIABLE,
  type SearchBackendName,
  searchBackendName,
} from './config.js';
export { filterMiss, type WebFilters } from './filters.js';
export type { SearchResult } from './result.js';
export { normalizeUrl } from './url.js';

/** Every backend caps a request at 20 results; fewer than one is no search at all. */
const MAX_RESULTS = 20;

/**
 * One web search on the configured backend (see searchBackendName). Failures are ToolErrors of one line
 * that name the service; a bad AGENT_SEARCH or endpoint variable is a ConfigError. `filters` go to the
 * backend in its own form; results it returns outside them are the caller's to drop (see filterMiss).
 */
export async function searchWeb(
  query: string,
  count: number,
  env: NodeJS.ProcessEnv,
  signal?: AbortSignal,
  filters?: WebFilters,
): Promise<SearchResult[]> {
  const backend = searchBackendName(env);
  if (!backend) throw new ToolError(`Web search is not configured: ${SEARCH_SETUP_HINT}.`);
  const n = Math.min(MAX_RESULTS, Math.max(1, Math.floor(count)));
  switch (backend) {
    case 'brave':
      return searchBrave(query, n, env, envValue(env, 'BRAVE_SEARCH_KEY')!, signal, filters);
    case 'tavily':
      return searchTavily(query, n, env, envValue(env, 'TAVILY_API_KEY')!, signal, filters);
    case 'searxng':
      return searchSearxng(query, n, env, signal, filters);
  }
}
