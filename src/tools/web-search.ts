import { z } from 'zod';
import { type Tool, ToolError } from './tool.js';

export const BRAVE_SEARCH_URL = 'https://api.search.brave.com/res/v1/web/search';

export interface SearchResult {
  title: string;
  url: string;
  snippet: string;
}

const braveResponse = z.object({
  web: z
    .object({
      results: z
        .array(
          z.object({ title: z.string().default(''), url: z.string(), description: z.string().default('') }),
        )
        .default([]),
    })
    .optional(),
});

/** Brave marks matches with <strong> and escapes entities; the model wants plain text. */
function plain(text: string): string {
  return text
    .replace(/<[^>]+>/g, '')
    .replace(/&quot;/g, '"')
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .trim();
}

/** One Brave Search API call; failures are ToolErrors that say what happened. */
export async function searchWeb(
  query: string,
  count: number,
  env: NodeJS.ProcessEnv,
  signal?: AbortSignal,
): Promise<SearchResult[]> {
  const key = env.BRAVE_SEARCH_KEY;
  if (!key) throw new ToolError('Web search is not configured: BRAVE_SEARCH_KEY is not set.');
  const url = new URL(env.BRAVE_SEARCH_URL || BRAVE_SEARCH_URL);
  url.searchParams.set('q', query);
  url.searchParams.set('count', String(count));
  const timeout = AbortSignal.timeout(15_000);
  let response: Response;
  try {
    response = await fetch(url, {
      headers: { Accept: 'application/json', 'X-Subscription-Token': key },
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new ToolError(`Web search could not reach the search service: ${(error as Error).message}.`);
  }
  if (response.status === 401 || response.status === 403) {
    throw new ToolError(
      `Web search was refused (${response.status}): the search key is invalid or not allowed. The user should check BRAVE_SEARCH_KEY.`,
    );
  }
  if (response.status === 429) {
    throw new ToolError(
      'Web search hit its rate limit (429). Wait before searching again, or answer from what you have.',
    );
  }
  if (!response.ok) throw new ToolError(`Web search failed with HTTP ${response.status}.`);
  const parsed = braveResponse.safeParse(await response.json().catch(() => undefined));
  if (!parsed.success) throw new ToolError('Web search returned a response that could not be read.');
  return (parsed.data.web?.results ?? [])
    .slice(0, count)
    .map((r) => ({ title: plain(r.title), url: r.url, snippet: plain(r.description) }));
}

export function formatResults(results: SearchResult[]): string {
  if (results.length === 0) return 'No results.';
  return results.map((r, i) => `${i + 1}. ${r.title}\n   ${r.url}\n   ${r.snippet}`).join('\n');
}

export function webSearchTool(env: NodeJS.ProcessEnv = process.env): Tool<{ query: string; count?: number }> {
  return {
    name: 'web_search',
    description:
      'Searches the web and returns numbered results (title, URL, snippet). Call it for current events, ' +
      'specific facts or sources you do not know; then read_url the most promising result if the snippet is not enough.',
    input: z.strictObject({
      query: z.string().min(1).describe('What to search for, as you would type it into a search engine'),
      count: z.number().int().min(1).max(10).optional().describe('How many results, 1 to 10 (default 5)'),
    }),
    async run({ query, count }, { signal }) {
      return formatResults(await searchWeb(query, count ?? 5, env, signal));
    },
  };
}
