import { z } from 'zod';
import { requestUrl, type SearchConfig } from './config.js';
import { isoDay, namedWindow, parsePeriod, periodStart, type WebFilters } from './filters.js';
import { parseReply, requestJson } from './request.js';
import { oneLine, type SearchResult } from './result.js';

// Tavily Search API: POST {TAVILY_BASE_URL}/search, `Authorization: Bearer <key>`, a JSON body; results[]
// with title, url, content (an excerpt), raw_content (the page's text, or null when Tavily has none) and,
// for some results, published_date. Filters: include_domains, exclude_domains, and time_range (day, week,
// month, year) when --recent is exactly one of those, else start_date (YYYY-MM-DD).

/** The request fields for the filters; only those that are set. */
export function tavilyFilters(filters: WebFilters | undefined, now: Date): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  if (filters?.sites.length) fields.include_domains = filters.sites;
  if (filters?.excludeSites.length) fields.exclude_domains = filters.excludeSites;
  const period = filters?.recent ? parsePeriod(filters.recent) : undefined;
  if (period) {
    const named = namedWindow(period, now);
    if (named) fields.time_range = named;
    else fields.start_date = isoDay(periodStart(period, now));
  }
  return fields;
}

const tavilyReply = z.object({
  results: z.array(
    z.object({
      title: z.string().nullish(),
      url: z.string(),
      content: z.string().nullish(),
      raw_content: z.string().nullish(),
      published_date: z.string().nullish(),
    }),
  ),
});

export async function searchTavily(
  query: string,
  count: number,
  search: Extract<SearchConfig, { key: string }>,
  signal?: AbortSignal,
  filters?: WebFilters,
  now = new Date(),
): Promise<SearchResult[]> {
  const body = await requestJson({
    service: 'Tavily',
    url: requestUrl(search),
    method: 'POST',
    headers: { Authorization: `Bearer ${search.key}` },
    body: {
      query,
      max_results: count,
      search_depth: 'basic',
      topic: 'general',
      include_answer: false,
      // The page text comes with each result (as Markdown): it stands in for a page that cannot be read.
      include_raw_content: true,
      include_images: false,
      ...tavilyFilters(filters, now),
    },
    signal,
    // Other refusals (a used-up plan, say) keep Tavily's own words: requestJson quotes its `detail.error`.
    keyVariable: 'TAVILY_API_KEY',
  });
  return parseReply(tavilyReply, body, 'Tavily')
    .results.slice(0, count)
    .map((r) => {
      const result: SearchResult = {
        title: oneLine(r.title ?? ''),
        url: r.url,
        snippet: oneLine(r.content ?? ''),
      };
      const content = r.raw_content?.trim();
      if (content) result.content = content;
      if (r.published_date) result.published = r.published_date;
      return result;
    });
}
