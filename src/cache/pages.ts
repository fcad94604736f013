import type CachePolicy from 'http-cache-semantics';
import { EXTRACTOR_VERSION } from '../formats/version.js';
import type { CacheStore } from '../store/store.js';
import { parseAllowHosts } from '../web/net/address-policy.js';
import { checkUrl, type Fetched } from '../web/net/safe-fetch.js';
import type { Page, PageCache } from '../web/read.js';
import { pageKey } from './keys.js';

// The page cache above safeFetch. Within --max-age a page is answered from the database; after that it
// is asked for again with its validators (If-None-Match, If-Modified-Since), and a 304 keeps the stored
// text. http-cache-semantics (what npm's own cache uses) decides what may be stored and builds the
// conditional request; --max-age, not the server's freshness, decides when to ask again, except that a
// page marked `no-cache` is asked about every time. The database is only a help: a write that fails is
// skipped and a row that cannot be read is a miss, so a read-only or full database never stops a read.

export interface PageCacheOptions {
  /** How long a stored page is used without asking the server (0: always ask). */
  maxAgeMs: number;
  /** --refresh: fetch everything afresh this time (and store what was fetched). */
  refresh?: boolean;
  /** For AGENT_ALLOW_HOSTS: a stored page is served only if its URLs would still be fetched. */
  env?: NodeJS.ProcessEnv;
  now?: () => number;
}

type Policy = typeof CachePolicy;
let policyClass: Promise<Policy> | undefined;
/** Loaded with the first page read, not with the command. */
const loadPolicy = (): Promise<Policy> => {
  policyClass ??= import('http-cache-semantics').then((m) => m.default);
  return policyClass;
};

const KINDS: readonly Page['kind'][] = ['html', 'pdf', 'text'];
const VALIDATORS = ['if-none-match', 'if-modified-since'];

interface Hit {
  page: Page;
  policy: CachePolicy;
  fetchedAt: number;
}

/** The stored page, when there is a usable one: another extractor's text or a damaged row is a miss. */
async function lookup(cache: CacheStore, key: string, Policy: Policy): Promise<Hit | undefined> {
  try {
    const row = await cache.getPage(key);
    if (!row || row.extractor !== EXTRACTOR_VERSION) return undefined;
    const kind = row.kind as Page['kind'];
    if (!KINDS.includes(kind)) return undefined;
    const page: Page = {
      url: row.finalUrl,
      title: row.title,
      text: row.text,
      kind,
      fetchedAt: new Date(row.fetchedAt).toISOString(),
    };
    if (row.pages !== null) page.pages = row.pages;
    return {
      page,
      policy: Policy.fromObject(row.policy as CachePolicy.CachePolicyObject),
      fetchedAt: row.fetchedAt,
    };
  } catch {
    return undefined;
  }
}

/** The ETag and Last-Modified a revalidation sends back, as the (updated) response gave them. */
function validators(policy: CachePolicy): { etag: string | null; lastModified: string | null } {
  const headers = policy.responseHeaders();
  const value = (name: string) => (headers[name] === undefined ? null : String(headers[name]));
  return { etag: value('etag'), lastModified: value('last-modified') };
}

/** `no-cache` (or, without Cache-Control, the old `Pragma: no-cache`): stored, but asked about each time. */
function mustAsk(policy: CachePolicy): boolean {
  const headers = policy.responseHeaders();
  const control = headers['cache-control'];
  if (control === undefined) return /no-cache/i.test(String(headers.pragma ?? ''));
  return /(^|,)\s*no-cache\b/i.test(String(control));
}

/** Best effort: the page was read either way. */
async function quietly(write: () => Promise<void>): Promise<void> {
  try {
    await write();
  } catch {}
}

export function pageCache(cache: CacheStore, o: PageCacheOptions): PageCache {
  const now = o.now ?? Date.now;
  const allow = parseAllowHosts(o.env?.AGENT_ALLOW_HOSTS);
  return {
    async page(url, fetch, read) {
      const key = pageKey(url);
      // Not a URL: the fetch says so.
      if (key === undefined) return read(await fetch());
      const Policy = await loadPolicy();
      const request = { url: key, method: 'GET', headers: { host: new URL(key).host } };

      /** Reads a full response; stores it when it is whole, a 200, and the server lets it be stored. */
      const readAndStore = async (fetched: Fetched): Promise<Page> => {
        const fetchedAt = now();
        const page = await read(fetched);
        await quietly(async () => {
          const policy = new Policy(request, { status: fetched.status, headers: fetched.headers });
          // A cut body or a PDF read only in part is not the page; no-store and private are the server's no.
          if (fetched.status !== 200 || fetched.truncated || page.note || !policy.storable()) {
            await cache.deletePage(key);
            return;
          }
          await cache.putPage({
            url: key,
            finalUrl: page.url,
            fetchedAt,
            ...validators(policy),
            policy: policy.toObject(),
            extractor: EXTRACTOR_VERSION,
            title: page.title,
            kind: page.kind,
            pages: page.pages ?? null,
            text: page.text,
          });
        });
        return page;
      };

      const hit = o.refresh ? undefined : await lookup(cache, key, Policy);
      if (!hit) return readAndStore(await fetch());
      let alwaysAsk = false;
      let conditional: Record<string, string> = {};
      try {
        alwaysAsk = mustAsk(hit.policy);
        const headers = hit.policy.revalidationHeaders(request);
        conditional = Object.fromEntries(
          VALIDATORS.flatMap((name) => (headers[name] ? [[name, String(headers[name])]] : [])),
        );
      } catch {
        // A policy that does not work is a miss: the page is fetched in full.
        return readAndStore(await fetch());
      }
      if (!alwaysAsk && now() - hit.fetchedAt < o.maxAgeMs) {
        // Served without a request, but never for a URL the rules would now refuse by its form.
        checkUrl(new URL(key), allow);
        checkUrl(new URL(hit.page.url), allow);
        return hit.page;
      }
      const fetched = await fetch(conditional);
      if (fetched.status === 304) {
        const { policy, modified } = hit.policy.revalidatedPolicy(request, {
          status: 304,
          headers: fetched.headers,
        });
        if (!modified) {
          const confirmed = now();
          await quietly(() =>
            cache.touchPage(key, {
              fetchedAt: confirmed,
              ...validators(policy),
              policy: policy.toObject(),
            }),
          );
          return { ...hit.page, fetchedAt: new Date(confirmed).toISOString() };
        }
      }
      return readAndStore(fetched);
    },
  };
}
