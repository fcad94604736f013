import { errorMessage } from '../errors.js';
import type { Db } from '../store/open.js';
import { readPage } from '../tools/read-url.js';
import { searchWeb } from '../tools/web-search.js';
import { getDocument } from './documents.js';
import type { Plan } from './plan.js';

/** A collected source. Its number is fixed when it is collected and means the same in every later step. */
export interface Source {
  n: number;
  kind: 'document' | 'web';
  title: string;
  /** The file path or the URL. */
  location: string;
  slug?: string;
  text: string;
  /** `snippet`: the page could not be read, so the search result's snippet stands in for it. */
  status: 'read' | 'snippet';
}

/** What happened to everything the plan asked for, collected or not. */
export interface SourceReport {
  label: string;
  status: 'read' | 'snippet' | 'failed' | 'skipped';
  detail?: string;
  n?: number;
}

export interface CollectOptions {
  db: Db;
  root: string;
  env: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  onReport?: (report: SourceReport) => void;
}

const MAX_SOURCE_CHARS = 24_000;

export async function collectSources(
  plan: Plan,
  o: CollectOptions,
): Promise<{ sources: Source[]; reports: SourceReport[] }> {
  const sources: Source[] = [];
  const reports: SourceReport[] = [];
  const report = (r: SourceReport) => {
    reports.push(r);
    o.onReport?.(r);
  };
  const add = (s: Omit<Source, 'n'>): Source => {
    const source = { ...s, n: sources.length + 1, text: s.text.slice(0, MAX_SOURCE_CHARS) };
    sources.push(source);
    return source;
  };

  for (const slug of plan.documents) {
    const doc = getDocument(o.db, o.root, slug);
    if (!doc) {
      report({ label: slug, status: 'failed', detail: 'no such document' });
      continue;
    }
    const s = add({
      kind: 'document',
      title: doc.title,
      location: doc.path,
      slug,
      text: doc.body,
      status: 'read',
    });
    report({ label: slug, status: 'read', n: s.n });
  }

  if (plan.searches.length > 0 && !o.env.BRAVE_SEARCH_KEY) {
    for (const q of plan.searches)
      report({ label: `search "${q}"`, status: 'skipped', detail: 'no BRAVE_SEARCH_KEY set' });
    return { sources, reports };
  }

  // Searches and page reads run in parallel; results are numbered afterwards in the plan's order, so the
  // numbering never depends on which request finished first.
  const searched = await Promise.all(
    plan.searches.map(async (query) => {
      try {
        return { query, results: await searchWeb(query, 3, o.env, o.signal) };
      } catch (error) {
        if (o.signal?.aborted) throw error;
        return { query, error: errorMessage(error) };
      }
    }),
  );
  const seen = new Set<string>();
  const picks = searched.map((s) => {
    if (s.error !== undefined) return { ...s, top: undefined };
    const top = s.results!.find((r) => !seen.has(r.url));
    if (top) seen.add(top.url);
    return { ...s, top };
  });
  const pages = await Promise.all(
    picks.map(async (p) => {
      if (!p.top) return undefined;
      try {
        return { page: await readPage(p.top.url, { env: o.env, signal: o.signal }) };
      } catch (error) {
        if (o.signal?.aborted) throw error;
        return { error: errorMessage(error) };
      }
    }),
  );
  for (const [i, p] of picks.entries()) {
    const top = p.top;
    if (p.error !== undefined) {
      report({ label: `search "${p.query}"`, status: 'failed', detail: p.error });
    } else if (!top) {
      const detail = p.results?.length ? 'its results were already collected' : 'no results';
      report({ label: `search "${p.query}"`, status: 'skipped', detail });
    } else {
      const fetched = pages[i]!;
      if (fetched.page) {
        const { title, url, text } = fetched.page;
        const s = add({ kind: 'web', title: title || top.title, location: url, text, status: 'read' });
        report({ label: top.url, status: 'read', n: s.n });
      } else if (top.snippet) {
        const s = add({
          kind: 'web',
          title: top.title,
          location: top.url,
          text: top.snippet,
          status: 'snippet',
        });
        report({ label: top.url, status: 'snippet', detail: fetched.error, n: s.n });
      } else {
        report({ label: top.url, status: 'failed', detail: fetched.error });
      }
    }
  }
  return { sources, reports };
}
