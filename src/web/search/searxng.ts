import { z } from 'zod';
import { WebError } from '../errors.js';
import { requestUrl, type SearchConfig } from './config.js';
import { namedWindow, parsePeriod, type WebFilters, withSites } from './filters.js';
import { parseReply, requestJson } from './request.js';
import { plain, type SearchResult } from './result.js';

// SearXNG, a self-hosted metasearch engine: GET {SEARXNG_URL}/search?q=…&format=json, no key; results[] with
// title, url, content (an excerpt) and publishedDate. JSON output is off by default: such an instance
// answers 403. Filters: `site:` operators in q (passed on to the engines), and `time_range` (day, week,
// month, year: the smallest that covers --recent; none beyond a year, where the dates alone decide).

const searxngReply = z.object({
  results: z.array(
    z.object({
      title: z.string().nullish(),
      // Every web result has one; an engine plugin's odd entry without it is skipped, not fatal.
      url: z.string().nullish(),
      content: z.string().nullish(),
      publishedDate: z.string().nullish(),
    }),
  ),
  /** `[engine, reason]` pairs for the engines that failed this time. */
  unresponsive_engines: z.array(z.array(z.unknown())).nullish(),
});

export async function searchSearxng(
  query: string,
  count: number,
  search: Pick<SearchConfig, 'endpoint'>,
  signal?: AbortSignal,
  filters?: WebFilters,
  now = new Date(),
): Promise<SearchResult[]> {
  const url = requestUrl(search);
  const where = `${url.origin}${url.pathname.replace(/\/search$/, '')}`;
  // fetch refuses URLs with credentials; an instance behind basic auth gets them as a header instead.
  const headers: Record<string, string> = {};
  if (url.username || url.password) {
    const user = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
    headers.Authorization = `Basic ${Buffer.from(user).toString('base64')}`;
    url.username = '';
    url.password = '';
  }
  url.searchParams.set('q', withSites(query, filters));
  url.searchParams.set('format', 'json');
  const period = filters?.recent ? parsePeriod(filters.recent) : undefined;
  const window = period && namedWindow(period, now, true);
  if (window) url.searchParams.set('time_range', window);
  const body = await requestJson({
    service: 'SearXNG',
    url,
    headers,
    signal,
    statusMessage: (status) => {
      if (status === 403) {
        return (
          `The SearXNG instance at ${where} has JSON output switched off (403): add json under ` +
          'search.formats in its settings.yml (formats: [html, json]) and restart it.'
        );
      }
      if (status === 401) {
        return `The SearXNG instance at ${where} asks for a login (401): give it in SEARXNG_URL as https://user:password@host/.`;
      }
      if (status === 429) {
        return (
          `The SearXNG instance at ${where} is limiting requests (429): wait, or on your own instance turn ` +
          'its limiter off (server.limiter: false in settings.yml).'
        );
      }
      return undefined;
    },
    notJsonHint: 'check that SEARXNG_URL is the address of a SearXNG instance',
  });
  const reply = parseReply(searxngReply, body, 'SearXNG');
  const results = reply.results
    .filter((r): r is typeof r & { url: string } => typeof r.url === 'string' && r.url !== '')
    .slice(0, count)
    .map((r) => ({
      title: plain(r.title ?? ''),
      url: r.url,
      snippet: plain(r.content ?? ''),
      ...(r.publishedDate ? { published: r.publishedDate } : {}),
    }));
  const failed = (reply.unresponsive_engines ?? []).map((e) =>
    e.filter((x) => typeof x === 'string').join(': '),
  );
  // Nothing found because every engine failed is not "no results": say which engines and why.
  if (results.length === 0 && failed.length > 0) {
    throw new WebError(`SearXNG found nothing because its engines did not answer (${failed.join('; ')}).`);
  }
  return results;
}
