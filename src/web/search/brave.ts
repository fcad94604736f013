import { z } from 'zod';
import { requestUrl, type SearchConfig } from './config.js';
import { isoDay, namedWindow, parsePeriod, periodStart, type WebFilters, withSites } from './filters.js';
import { parseReply, requestJson } from './request.js';
import { plain, type SearchResult } from './result.js';

// Brave Search API: GET {BRAVE_SEARCH_URL}?q=…&count=N with the key in X-Subscription-Token;
// results in web.results[] with title, url, description (matches marked with <strong>) and page_age (the
// page's date, ISO 8601, when Brave knows it). Filters: `site:` operators in q, and `freshness` as pd, pw,
// pm, py or a YYYY-MM-DDtoYYYY-MM-DD range.

const FRESHNESS = { day: 'pd', week: 'pw', month: 'pm', year: 'py' } as const;

/** Brave's `freshness` for --recent: a named window when one fits exactly, else a date range to today. */
export function braveFreshness(recent: string | undefined, now: Date): string | undefined {
  const period = recent ? parsePeriod(recent) : undefined;
  if (!period) return undefined;
  const named = namedWindow(period, now);
  return named ? FRESHNESS[named] : `${isoDay(periodStart(period, now))}to${isoDay(now)}`;
}

const braveReply = z.object({
  web: z
    .object({
      results: z.array(
        z.object({
          title: z.string().default(''),
          url: z.string(),
          description: z.string().default(''),
          page_age: z.string().nullish(),
        }),
      ),
    })
    .optional(),
});

export async function searchBrave(
  query: string,
  count: number,
  search: Extract<SearchConfig, { key: string }>,
  signal?: AbortSignal,
  filters?: WebFilters,
  now = new Date(),
): Promise<SearchResult[]> {
  const url = requestUrl(search);
  url.searchParams.set('q', withSites(query, filters));
  url.searchParams.set('count', String(count));
  const freshness = braveFreshness(filters?.recent, now);
  if (freshness) url.searchParams.set('freshness', freshness);
  const body = await requestJson({
    service: 'Brave',
    url,
    headers: { 'X-Subscription-Token': search.key },
    signal,
    keyVariable: 'BRAVE_SEARCH_KEY',
  });
  // No `web` section at all is Brave's way of saying "no web results".
  const results = parseReply(braveReply, body, 'Brave').web?.results ?? [];
  return results.slice(0, count).map((r) => ({
    title: plain(r.title),
    url: r.url,
    snippet: plain(r.description),
    ...(r.page_age ? { published: r.page_age } : {}),
  }));
}
