import { type SearchConfig, type SearchResult, searchWeb } from '../web/search/index.js';
import { webSearchParameters } from './parameters.js';
import type { Tool } from './tool.js';

// The chat's web_search tool. The backends (Brave, Tavily, SearXNG) live in src/web/search/.

// The research chain imported these from here before search/ existed.
export { type SearchResult, searchWeb };

export function formatResults(results: SearchResult[]): string {
  if (results.length === 0) return 'No results.';
  return results.map((r, i) => `${i + 1}. ${r.title}\n   ${r.url}\n   ${r.snippet}`).join('\n');
}

/** `search`: the session's backend (see resolveSearch); without one, each call fails saying how to set it up. */
export function webSearchTool(search: SearchConfig | undefined): Tool<{ query: string; count?: number }> {
  return {
    name: 'web_search',
    description:
      'Searches the web and returns numbered results (title, URL, snippet). Call it for current events, ' +
      'specific facts or sources you do not know; then read_url the most promising result if the snippet is not enough.',
    parameters: webSearchParameters,
    input: () => import('./inputs.js').then((m) => m.webSearchInput),
    async run({ query, count }, { signal }) {
      return formatResults(await searchWeb(query, count ?? 5, search, signal));
    },
  };
}
