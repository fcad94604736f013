import { z } from 'zod';
import { searchEndpoint } from './config.js';
import { parseReply, requestJson } from './request.js';
import { plain, type SearchResult } from './result.js';

// Brave Search API: GET {BRAVE_SEARCH_URL}?q=…&count=N with the key in X-Subscription-Token;
// results in web.results[] with title, url and description (matches marked with <strong>).

const braveReply = z.object({
  web: z
    .object({
      results: z.array(
        z.object({
          title: z.string().default(''),
          url: z.string(),
          description: z.string().default(''),
        }),
      ),
    })
    .optional(),
});

export async function searchBrave(
  query: string,
  count: number,
  env: NodeJS.ProcessEnv,
  key: string,
  signal?: AbortSignal,
): Promise<SearchResult[]> {
  const url = searchEndpoint('brave', env);
  url.searchParams.set('q', query);
  url.searchParams.set('count', String(count));
  const body = await requestJson({
    service: 'Brave',
    url,
    headers: { 'X-Subscription-Token': key },
    signal,
    keyVariable: 'BRAVE_SEARCH_KEY',
  });
  // No `web` section at all is Brave's way of saying "no web results".
  const results = parseReply(braveReply, body, 'Brave').web?.results ?? [];
  return results
    .slice(0, count)
    .map((r) => ({ title: plain(r.title), url: r.url, snippet: plain(r.description) }));
}
