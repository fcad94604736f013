import type { DocumentInfo, PassageHit, PassageSpan, SearchHit, Store } from '../../store/store.js';
import { trustedText } from './trust.js';

// Full-text search over whole documents and over their passages: the store ranks (SQLite FTS5 BM25, or
// PostgreSQL's ts_rank_cd); here the question becomes search terms and the scores are combined.

export type { DocumentInfo, PassageHit, PassageSpan, SearchHit };

export interface Document extends DocumentInfo {
  body: string;
}

export const listDocuments = (store: Store, root: string): Promise<DocumentInfo[]> => store.index.list(root);

export async function getDocument(store: Store, root: string, slug: string): Promise<Document | undefined> {
  const doc = await store.index.find(root, slug);
  if (!doc) return undefined;
  const { id, length: _length, ...info } = doc;
  const trusted = await trustedText(store, root, { ...doc, slug });
  return { ...info, body: trusted?.text ?? (await store.index.text(id)) };
}

const STOPWORDS = new Set(
  'a an and are as at be but by can could do does for from has have how i if in is it its may me my of on or our should so than that the their them then there these this to was we what when where which who why will with without would you your'.split(
    ' ',
  ),
);

/** The words of a question worth searching for; "without" and "not" stay out, they match everything. */
export function queryTerms(text: string): string[] {
  const words = text.toLowerCase().match(/[\p{L}\p{N}$]+/gu) ?? [];
  return [...new Set(words.map((w) => w.replace(/^\$/, '')).filter((w) => w && !STOPWORDS.has(w)))];
}

/**
 * Documents by full-text rank: a title match counts five times, and the body's score is that of its best
 * passage (the text is indexed once, as passages). Best first.
 */
export async function searchDocuments(
  store: Store,
  root: string,
  query: string,
  limit = 5,
): Promise<SearchHit[]> {
  const terms = queryTerms(query);
  return terms.length === 0 ? [] : store.index.searchDocuments(root, terms, limit);
}

/** The passages of every document in the folder by full-text rank, best first. */
export async function searchPassages(
  store: Store,
  root: string,
  query: string,
  limit = 12,
): Promise<PassageHit[]> {
  const terms = queryTerms(query);
  return terms.length === 0 ? [] : store.index.searchPassages(root, terms, limit);
}

/**
 * The ordinals of one document's passages that match any of the queries, best first. Each query's
 * scores are scaled so that its best passage scores 1 (by the store), then added up: each query's best
 * passages come early, and a passage that several queries find comes before one only one of them finds.
 */
export async function rankPassages(store: Store, documentId: number, queries: string[]): Promise<number[]> {
  const total = new Map<number, number>();
  for (const scores of await store.index.rankPassages(documentId, queries.map(queryTerms)))
    for (const [ordinal, score] of scores) total.set(ordinal, (total.get(ordinal) ?? 0) + score);
  return [...total.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]).map(([ordinal]) => ordinal);
}
