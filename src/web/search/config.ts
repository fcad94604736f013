import { ConfigError } from '../../errors.js';

// Which search backend to use, from AGENT_SEARCH or the first one configured. No heavy imports here:
// the chat decides whether to offer web_search before any backend module is loaded.

export type SearchBackendName = 'brave' | 'tavily' | 'searxng';

/** In the order a backend is picked when AGENT_SEARCH is not set. */
export const SEARCH_BACKENDS: readonly SearchBackendName[] = ['brave', 'tavily', 'searxng'];

/** The variable that configures each backend (a key, or SearXNG's address). */
export const SEARCH_VARIABLE: Record<SearchBackendName, string> = {
  brave: 'BRAVE_SEARCH_KEY',
  tavily: 'TAVILY_API_KEY',
  searxng: 'SEARXNG_URL',
};

/** How to turn web search on, for messages elsewhere: "Web searches skipped: ${SEARCH_SETUP_HINT}." */
export const SEARCH_SETUP_HINT = 'set BRAVE_SEARCH_KEY, TAVILY_API_KEY or SEARXNG_URL';

export const BRAVE_SEARCH_URL = 'https://api.search.brave.com/res/v1/web/search';
export const TAVILY_BASE_URL = 'https://api.tavily.com';

/** A variable counts as set only with something in it (`FOO=` in a shell profile means "off"). */
function envValue(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

/**
 * A search backend resolved from the environment: which service, where its requests go (each request
 * works on its own copy: see requestUrl) and, for Brave and Tavily, the key.
 */
export type SearchConfig =
  | { backend: 'brave' | 'tavily'; endpoint: URL; key: string }
  | { backend: 'searxng'; endpoint: URL };

/**
 * The search configuration for a research run or a chat session, read from the environment once and
 * passed along, so no search parses it again. Undefined when no backend is configured; a bad
 * AGENT_SEARCH, or a malformed address for the chosen backend, is a ConfigError, so the mistake shows
 * when the command starts rather than as a failed search later.
 */
export function resolveSearch(env: NodeJS.ProcessEnv): SearchConfig | undefined {
  const backend = pickBackend(env);
  if (!backend) return undefined;
  const endpoint = searchEndpoint(backend, env);
  // pickBackend chose it because its variable is set: for Brave and Tavily, that is the key.
  if (backend === 'searxng') return { backend, endpoint };
  return { backend, endpoint, key: envValue(env, SEARCH_VARIABLE[backend])! };
}

/** A fresh copy of the endpoint for one request, which adds its own query parameters to it. */
export const requestUrl = (search: Pick<SearchConfig, 'endpoint'>): URL => new URL(search.endpoint);

/** `AGENT_SEARCH` when set (and its variable too), else the first configured of Brave, Tavily, SearXNG. */
function pickBackend(env: NodeJS.ProcessEnv): SearchBackendName | undefined {
  const chosen = envValue(env, 'AGENT_SEARCH')?.toLowerCase();
  let name: SearchBackendName | undefined;
  if (chosen) {
    if (!SEARCH_BACKENDS.includes(chosen as SearchBackendName)) {
      throw new ConfigError(
        `AGENT_SEARCH is "${env.AGENT_SEARCH}", which is not a search backend: use brave, tavily or searxng, ` +
          'or leave it unset to use the first one configured.',
      );
    }
    name = chosen as SearchBackendName;
    const variable = SEARCH_VARIABLE[name];
    if (!envValue(env, variable)) {
      throw new ConfigError(
        `AGENT_SEARCH picks ${name}, but ${variable} is not set: set it, or unset AGENT_SEARCH.`,
      );
    }
  } else {
    name = SEARCH_BACKENDS.find((b) => envValue(env, SEARCH_VARIABLE[b]));
  }
  return name;
}

/** The URL a backend's requests go to, from its override variable or the public service. */
export function searchEndpoint(name: SearchBackendName, env: NodeJS.ProcessEnv): URL {
  switch (name) {
    case 'brave':
      return parseEndpoint('BRAVE_SEARCH_URL', envValue(env, 'BRAVE_SEARCH_URL') ?? BRAVE_SEARCH_URL);
    case 'tavily':
      return withPath(parseEndpoint('TAVILY_BASE_URL', envValue(env, 'TAVILY_BASE_URL') ?? TAVILY_BASE_URL));
    case 'searxng':
      return withPath(parseEndpoint('SEARXNG_URL', envValue(env, 'SEARXNG_URL') ?? ''));
  }
}

function parseEndpoint(variable: string, value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(`${variable} is not a URL: "${value}". Give the full address, e.g. https://host/.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`${variable} must be an http or https URL, not "${value}".`);
  }
  return url;
}

/**
 * `{base}/search`: a base given with or without a trailing slash, under a sub-path (`https://host/searx`),
 * or already ending in /search all mean the same endpoint.
 */
function withPath(base: URL): URL {
  const url = new URL(base);
  const path = url.pathname.replace(/\/+$/, '');
  url.pathname = path.endsWith('/search') ? path : `${path}/search`;
  url.search = '';
  url.hash = '';
  return url;
}
