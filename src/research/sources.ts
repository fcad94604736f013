import { AbortedError, errorMessage } from '../errors.js';
import type { Store } from '../store/store.js';
import { loadWebModules } from '../web/modules.js';
import { pdfBudgetMs } from '../web/pdf-budget.js';
import type { PageCache } from '../web/read.js';
import type { SearchConfig } from '../web/search/config.js';
import { type FilterMiss, filterMiss, hasFilters, type WebFilters } from '../web/search/filters.js';
import type { SearchResult } from '../web/search/result.js';
import { normalizeUrl } from '../web/search/url.js';
import { documentSource, textSource } from './documents/index.js';
import type { PassageRanker } from './documents/source.js';
import type { Plan } from './planning/plan.js';

/**
 * A collected source. Its number is fixed when its round of collection ends, in plan order (documents,
 * then each search's results by rank), and means the same in every later step and every run of that plan.
 */
export interface Source {
  n: number;
  kind: 'document' | 'web';
  title: string;
  /** The file path or the URL. */
  location: string;
  slug?: string;
  text: string;
  /**
   * How it was read: whole; as the passages of a long document that match the question; as the page text
   * the search service returned (the page itself could not be read); or only as the search snippet.
   */
  status: 'read' | 'excerpts' | 'search-text' | 'snippet';
  /** When a web page was read (ISO 8601). */
  readAt?: string;
  /** Its facts came from the extraction cache: no model call was paid for them this run. */
  cached?: boolean;
}

/** What happened to everything the plan asked for, collected or not. */
export interface SourceReport {
  label: string;
  /** `filtered`: a search's results that fell outside the web filters were dropped (detail says how many). */
  status: Source['status'] | 'failed' | 'skipped' | 'filtered';
  detail?: string;
  /** A PDF read only in part, within its time budget: "read 12 of 2,962 pages: the 15 s time budget was spent". */
  partial?: string;
  n?: number;
  /** The source's facts came from the extraction cache (see Source.cached). */
  cached?: boolean;
}

/** The report of a source a resumed run takes from its record. */
const READ_BEFORE = 'read before the run was resumed';

/** The most text one source contributes to its extraction prompt. */
export const MAX_SOURCE_CHARS = 24_000;
/** Results asked of the search service beyond those read, so that duplicates can be replaced. */
const SPARE_RESULTS = 3;

export interface RoundOptions {
  store: Store;
  root: string;
  env: NodeJS.ProcessEnv;
  /** The run's search backend (resolved once per run); undefined when none is configured. */
  search: SearchConfig | undefined;
  signal?: AbortSignal;
  /** Results read per search. */
  perSearch: number;
  /** Beyond this many characters a source is cut to its passages that match (default MAX_SOURCE_CHARS). */
  sourceChars?: number;
  /** The question and the plan's searches: long documents are cut to the passages that match these. */
  queries: string[];
  /** The run's retrieval: how a long document's passages are ranked for these queries. */
  retriever?: PassageRanker;
  /** Documents (`doc:slug`) and normalised URLs collected in earlier rounds; this round adds to it. */
  seen: Set<string>;
  /** Sources collected before this round: numbering continues from here. */
  base: number;
  /** How many more sources may be collected (--max-sources). */
  room: number;
  /** --site, --exclude-site, --recent: sent to the search service, and enforced on what it returns. */
  filters?: WebFilters;
  onReport?: (report: SourceReport) => void;
  /**
   * Called the moment a source's text is in hand, before numbering, so extraction can start at once; it
   * marks the source `cached` (before it settles) when its facts are already known, and does not wait
   * for an extraction it starts. `key` names it across attempts of the run: `doc:<slug>`, or the search
   * result's normalised URL.
   */
  onSource?: (source: Source, key: string) => Promise<void>;
  /** Pages read before (--max-age, --refresh). */
  pages?: PageCache;
  /** A search's results (inside the filters), as they arrive; recorded before they are read. */
  onSearch?: (query: string, results: SearchResult[]) => Promise<void>;
  /** A resumed run's searches and sources: taken as they were, never searched or read again. */
  prior?: PriorReads;
}

/** What an earlier attempt of a resumed run searched and read, by search query and by source key. */
export interface PriorReads {
  search(query: string): SearchResult[] | undefined;
  source(key: string): Omit<Source, 'n'> | undefined;
}

/** Collects one round's sources: documents at once, searches and page reads in parallel. */
export async function collectRound(plan: Plan, o: RoundOptions): Promise<Source[]> {
  const slots: (Source | undefined)[] = [];
  let room = o.room;
  const report = (r: SourceReport) => o.onReport?.(r);
  const collected = async (s: Omit<Source, 'n'>, key: string): Promise<Source> => {
    // Every text here is within the source budget already: documents and pages through their budget.
    const source: Source = { ...s, n: 0 };
    await o.onSource?.(source, key);
    return source;
  };

  // Searches go out before the documents are read (that is local work), unless the documents will use up
  // the room for sources: then they are not sent at all (each is a paid request), as decided below.
  const docsToRead = plan.documents.filter((d) => !o.seen.has(`doc:${d}`)).length;
  const searchesUnderWay =
    plan.searches.length > 0 && room - docsToRead > 0 && canSearch(plan.searches, o)
      ? sendSearches(plan.searches, o)
      : undefined;
  // Reading documents is mostly local work: give the searches (and, after each document, its extraction
  // request) a turn of the event loop to go out first.
  if (searchesUnderWay) await nextTurn();
  // On a team database each read is a round trip to the server: the documents that fit are read at once
  // and taken in plan order (one fails, no such document: the next one starts). On SQLite a read is
  // local work, done in its turn, after the last document's extraction request has gone out.
  const reads = new Map<string, Promise<Omit<Source, 'n'> | undefined>>();
  const readOf = (slug: string) => {
    let read = reads.get(slug);
    if (!read) {
      read = documentRead(o, slug);
      // Awaited in its turn below; a failure while an earlier one is awaited is not unhandled.
      read.catch(() => {});
      reads.set(slug, read);
    }
    return read;
  };
  if (o.store.kind === 'postgres') {
    // The unseen documents that fit the room; one an earlier attempt of the run read is not read again.
    const unseen = [...new Set(plan.documents)].filter((d) => !o.seen.has(`doc:${d}`));
    for (const slug of unseen.slice(0, Math.max(0, room))) if (!o.prior?.source(`doc:${slug}`)) readOf(slug);
  }
  for (const slug of plan.documents) {
    if (o.seen.has(`doc:${slug}`)) continue;
    if (room <= 0) {
      report({ label: slug, status: 'skipped', detail: '--max-sources reached' });
      continue;
    }
    const key = `doc:${slug}`;
    // One read of the document (its text, whole or the matching passages, title and path), unless an
    // earlier attempt of the run read it already.
    const before = o.prior?.source(key);
    const read = before ?? (await readOf(slug));
    if (!read) {
      report({ label: slug, status: 'failed', detail: 'no such document' });
      continue;
    }
    o.seen.add(key);
    room--;
    // Documents come first in plan order, so their numbers are known now.
    const s = await collected(read, key);
    s.n = o.base + slots.length + 1;
    slots.push(s);
    report({
      label: slug,
      status: s.status,
      n: s.n,
      detail: before ? READ_BEFORE : s.status === 'excerpts' ? 'matching passages' : undefined,
      ...cachedMark(s),
    });
    await nextTurn();
  }

  if (plan.searches.length > 0 && room <= 0) {
    // No room left: the searches are not sent at all (each is a paid request).
    for (const q of plan.searches)
      report({ label: `search "${q}"`, status: 'skipped', detail: '--max-sources reached' });
  } else if (plan.searches.length > 0)
    await collectWeb(
      plan.searches,
      o,
      { room, slots, report, collected, pdfBudgetMs: pdfBudgetMs(o.env) },
      searchesUnderWay,
    );

  const sources = slots.filter((s): s is Source => s !== undefined);
  sources.forEach((s, i) => {
    s.n = o.base + i + 1;
  });
  return sources;
}

async function documentRead(o: RoundOptions, slug: string): Promise<Omit<Source, 'n'> | undefined> {
  const budget = o.sourceChars ?? MAX_SOURCE_CHARS;
  const read = await documentSource(o.store, o.root, slug, o.queries, budget, o.retriever);
  if (!read) return undefined;
  const status = read.excerpted ? 'excerpts' : 'read';
  return { kind: 'document', title: read.title, location: read.path, slug, text: read.text, status };
}

interface WebState {
  room: number;
  slots: (Source | undefined)[];
  report: (r: SourceReport) => void;
  collected: (s: Omit<Source, 'n'>, key: string) => Promise<Source>;
  /** How long a PDF read by URL may take (AGENT_PDF_BUDGET_MS), resolved once for the round. */
  pdfBudgetMs: number;
}

/** A search service is set up, or (in a resumed run) every one of these searches was recorded. */
const canSearch = (searches: string[], o: RoundOptions): boolean =>
  o.search !== undefined || searches.every((q) => o.prior?.search(q) !== undefined);

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

type SearchReply = { query: string; results: SearchResult[]; error?: string };

/**
 * Sends every search at once. Each is answered in the order the plan gave (see collectWeb); marked
 * handled now so a cancellation is not an unhandled rejection while an earlier one is awaited.
 */
function sendSearches(searches: string[], o: RoundOptions): Promise<SearchReply>[] {
  const count = Math.min(10, o.perSearch + SPARE_RESULTS);
  const replies = searches.map(async (query): Promise<SearchReply> => {
    const recorded = o.prior?.search(query);
    if (recorded) return { query, results: recorded };
    const [{ searchWeb }] = await loadWebModules();
    try {
      // canSearch: a query not recorded by an earlier attempt has a search service to go to.
      const found = await searchWeb(query, count, o.search!, o.signal, o.filters);
      const results = dropOutside(query, found, o.filters, (r) => o.onReport?.(r));
      await o.onSearch?.(query, results);
      return { query, results };
    } catch (error) {
      if (o.signal?.aborted) throw new AbortedError();
      return { query, results: [], error: errorMessage(error) };
    }
  });
  for (const r of replies) r.catch(() => {});
  return replies;
}

async function collectWeb(
  searches: string[],
  o: RoundOptions,
  st: WebState,
  searchesUnderWay?: Promise<SearchReply>[],
): Promise<void> {
  if (!canSearch(searches, o)) {
    for (const q of searches)
      st.report({ label: `search "${q}"`, status: 'skipped', detail: 'no search service configured' });
    return;
  }
  const replies = searchesUnderWay ?? sendSearches(searches, o);
  const [, { readPage }] = await loadWebModules();
  const reads: Promise<void>[] = [];
  for (const reply of replies) {
    const s = await reply;
    if (s.error !== undefined) {
      st.report({ label: `search "${s.query}"`, status: 'failed', detail: s.error });
      continue;
    }
    let taken = 0;
    for (const result of s.results) {
      if (taken >= o.perSearch) break;
      const key = normalizeUrl(result.url);
      if (o.seen.has(key)) continue;
      if (st.room <= 0) {
        st.report({ label: result.url, status: 'skipped', detail: '--max-sources reached' });
        break;
      }
      o.seen.add(key);
      st.room--;
      taken++;
      const slot = st.slots.length;
      st.slots.push(undefined);
      const read = readResult(result, key, slot, o, st, readPage);
      read.catch(() => {});
      reads.push(read);
    }
    if (taken === 0 && st.room > 0) {
      const detail = s.results.length ? 'its results were already collected' : 'no results';
      st.report({ label: `search "${s.query}"`, status: 'skipped', detail });
    }
  }
  await Promise.all(reads);
}

type ReadPage = typeof import('../web/read.js')['readPage'];

/** Reads one picked result into its slot: the page, else the search service's text, else the snippet. */
async function readResult(
  result: SearchResult,
  key: string,
  slot: number,
  o: RoundOptions,
  st: WebState,
  readPage: ReadPage,
): Promise<void> {
  const reused = o.prior?.source(key);
  if (reused) {
    // Read by an earlier attempt of the run (where it landed, too, counts as collected).
    o.seen.add(normalizeUrl(reused.location));
    st.slots[slot] = await st.collected(reused, key);
    st.report({ label: result.url, status: reused.status, detail: READ_BEFORE });
    return;
  }
  let failure: string;
  try {
    // A long PDF is read for its time budget (AGENT_PDF_BUDGET_MS), then from the pages read by then.
    const pdf = { timeBudgetMs: st.pdfBudgetMs };
    const page = await readPage(result.url, { env: o.env, signal: o.signal, cache: o.pages, pdf });
    // A result that redirected to a page already collected (under another URL) is not read twice.
    const landed = normalizeUrl(page.url);
    if (landed !== normalizeUrl(result.url)) {
      if (o.seen.has(landed)) {
        st.report({
          label: result.url,
          status: 'skipped',
          detail: `it leads to ${page.url}, already collected`,
        });
        return;
      }
      o.seen.add(landed);
    }
    const title = page.title || result.title;
    // A long page or PDF is cut to its passages that match, as a long document is.
    const read = textSource(page.text, title, o.queries, o.sourceChars ?? MAX_SOURCE_CHARS);
    const status = read.excerpted ? 'excerpts' : 'read';
    const source = await st.collected(
      {
        kind: 'web',
        title,
        location: page.url,
        // The writer is told when a PDF was read only in part.
        text: page.note ? `[${page.note}]\n\n${read.text}` : read.text,
        status,
        // A page from the cache was read when it was fetched, or last confirmed unchanged.
        readAt: page.fetchedAt ?? new Date().toISOString(),
      },
      key,
    );
    st.slots[slot] = source;
    const partial = page.note && page.note[0]!.toLowerCase() + page.note.slice(1, -1);
    st.report({
      label: result.url,
      status,
      detail: read.excerpted ? 'matching passages' : undefined,
      ...(partial ? { partial } : {}),
      ...cachedMark(source),
    });
    return;
  } catch (error) {
    if (o.signal?.aborted) throw new AbortedError();
    failure = errorMessage(error);
  }
  // The page could not be read: the search service's own copy of its text, else its snippet.
  const fallback = result.content?.trim() ? 'search-text' : result.snippet.trim() ? 'snippet' : undefined;
  if (!fallback) {
    st.report({ label: result.url, status: 'failed', detail: failure });
    return;
  }
  const source = await st.collected(
    {
      kind: 'web',
      title: result.title,
      location: result.url,
      text:
        fallback === 'search-text'
          ? textSource(result.content!, result.title, o.queries, o.sourceChars ?? MAX_SOURCE_CHARS).text
          : result.snippet,
      status: fallback,
      readAt: new Date().toISOString(),
    },
    key,
  );
  st.slots[slot] = source;
  st.report({ label: result.url, status: fallback, detail: failure, ...cachedMark(source) });
}

const cachedMark = (s: Source): { cached?: true } => (s.cached ? { cached: true } : {});

const MISSED: Record<FilterMiss, string> = {
  site: 'outside --site',
  excluded: 'on an --exclude-site',
  old: 'older than --recent',
};

/** The results inside the filters; the search's report line says how many were dropped, and why. */
function dropOutside(
  query: string,
  results: SearchResult[],
  filters: WebFilters | undefined,
  report: (r: SourceReport) => void,
): SearchResult[] {
  if (!hasFilters(filters)) return results;
  const now = new Date();
  const counts = new Map<FilterMiss, number>();
  const kept = results.filter((r) => {
    const miss = filterMiss(r, filters, now);
    if (miss) counts.set(miss, (counts.get(miss) ?? 0) + 1);
    return !miss;
  });
  const dropped = results.length - kept.length;
  if (dropped > 0) {
    const why = [...counts].map(
      ([miss, n]) => `${n} ${MISSED[miss]}${miss === 'old' ? ` ${filters.recent}` : ''}`,
    );
    report({
      label: `search "${query}"`,
      status: 'filtered',
      detail: `${dropped} of ${results.length} result(s) dropped by the web filters (${why.join(', ')})`,
    });
  }
  return kept;
}
