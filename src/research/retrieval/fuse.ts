import { stem } from '../text.js';

// Reciprocal rank fusion of the keyword (BM25) and vector rankings, under one rule that keeps what
// keyword search does best: a passage that holds, verbatim, a code, name or figure of the query comes
// before every passage that holds fewer of them. Pure functions, so the rule is tested on its own.

/** The usual constant of reciprocal rank fusion (Cormack et al., 2009): ranks 1 and 2 differ little. */
export const RRF_K = 60;

export interface Fused<T> {
  item: T;
  /** 1-based ranks in each list; null where that list did not rank the passage. */
  bm25Rank: number | null;
  vectorRank: number | null;
  /**
   * Exact tokens held (a whole number) plus the fused score Σ 1/(60 + rank), which is below 1: the order
   * is by exact tokens first, then by fusion.
   */
  score: number;
}

const CALENDAR =
  /^(?:January|February|March|April|May|June|July|August|September|October|November|December|Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)$/;

/**
 * The query's tokens that name something exactly: any with a digit ("EXP-204", "$1,250", "4.5%", "2026"),
 * any with a capital after its first letter ("ACME", "iPhone"), and capitalised words other than the
 * first ("Okonkwo", "Lisbon"), which are matched with their case — but not months and weekdays, which
 * English capitalises by rule, not because they name one thing. Cut of surrounding punctuation.
 */
export function exactTokens(query: string): string[] {
  const raw = query.split(/\s+/).map((t) => t.replace(/^[^\p{L}\p{N}$€£]+|[^\p{L}\p{N}%]+$/gu, ''));
  const out = new Set<string>();
  raw.forEach((token, i) => {
    if (token.length < 2) return;
    if (/\p{N}/u.test(token) || /^.+\p{Lu}/u.test(token)) out.add(token);
    else if (i > 0 && /^\p{Lu}\p{Ll}/u.test(token) && !CALENDAR.test(token)) out.add(token);
  });
  return [...out];
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A matcher per exact token: the token whole (not inside a longer word or number), codes in any case. */
export function exactMatchers(tokens: string[]): RegExp[] {
  return tokens.map((t) => {
    // A figure's currency sign may be written or not: "$1,250" and "1,250" are the same figure.
    const body = escapeRegExp(t.replace(/^[$€£]/, ''));
    const flags = /\p{N}/u.test(t) || /^.+\p{Lu}/u.test(t) ? 'iu' : 'u';
    return new RegExp(`(?<![\\p{L}\\p{N}])${body}(?![\\p{L}]|[.,]?\\p{N})`, flags);
  });
}

/** Coverage at or below which the vectors alone order the passages, and at or above which keywords do. */
export const VECTORS_ALONE = 0.35;
export const KEYWORDS_ALONE = 0.65;
/**
 * The weight a list keeps when the other orders alone: its passages fill in after the other's and break
 * its ties, never reorder it (1/1000 of a reciprocal rank is below any gap between two of 50 ranks).
 */
export const FILL_WEIGHT = 0.001;

/**
 * Each list's weight, from how much of the question the best keyword passage holds (its content words,
 * stemmed). Most of it, and the question is worded as the documents are: keywords order, the vectors
 * only fill in. Little of it, and it is worded otherwise: keyword search mostly matches a common word, so
 * the vectors order. Between the two the weights move linearly, plain fusion at the middle. Any fixed
 * weight for the trailing list reorders the leading one: reciprocal ranks 1 and 10 differ by less than a
 * quarter of a trailing rank 1 does.
 */
export function leadWeights(coverage: number): { bm25: number; vector: number } {
  const b = Math.min(1, Math.max(0, (coverage - VECTORS_ALONE) / (KEYWORDS_ALONE - VECTORS_ALONE)));
  return { bm25: Math.max(FILL_WEIGHT, b), vector: Math.max(FILL_WEIGHT, 1 - b) };
}

/** The share of the query's words (stemmed) that the text holds. */
export function coverage(queryWords: string[], textWords: string[]): number {
  if (queryWords.length === 0) return 0;
  const held = new Set(textWords.map(stem));
  return queryWords.filter((w) => held.has(stem(w))).length / queryWords.length;
}

/** How many of the matchers match the text. */
export const exactCount = (text: string, matchers: RegExp[]): number =>
  matchers.reduce((n, m) => n + (m.test(text) ? 1 : 0), 0);

/**
 * The lists fused, best first. `keyOf` says when two entries are one passage; `textOf` gives the text
 * the exact tokens are looked for in. Either list may be empty (keyword-only or vector-only retrieval).
 * Candidates neither list ranked count only when they hold an exact token.
 */
export function fuse<T>(
  bm25: T[],
  vector: T[],
  keyOf: (item: T) => string,
  textOf: (item: T) => string,
  matchers: RegExp[] = [],
  /** Candidates neither list ranked (passages that hold exact tokens): they rank by those alone. */
  extra: T[] = [],
  /** Each list's weight in the fusion (see leadWeights). */
  weights: { bm25: number; vector: number } = { bm25: 1, vector: 1 },
): Fused<T>[] {
  const byKey = new Map<string, Fused<T>>();
  const add = (list: T[], which: 'bm25Rank' | 'vectorRank') =>
    list.forEach((item, i) => {
      const key = keyOf(item);
      let entry = byKey.get(key);
      if (!entry) {
        entry = { item, bm25Rank: null, vectorRank: null, score: 0 };
        byKey.set(key, entry);
      }
      if (entry[which] !== null) return;
      entry[which] = i + 1;
      entry.score += (which === 'bm25Rank' ? weights.bm25 : weights.vector) / (RRF_K + i + 1);
    });
  add(bm25, 'bm25Rank');
  add(vector, 'vectorRank');
  for (const item of extra)
    if (!byKey.has(keyOf(item))) byKey.set(keyOf(item), { item, bm25Rank: null, vectorRank: null, score: 0 });
  const all = [...byKey.values()];
  if (matchers.length) for (const e of all) e.score += exactCount(textOf(e.item), matchers);
  return all
    .filter((e) => e.score > 0)
    .sort((a, b) => b.score - a.score || (a.bm25Rank ?? 1e9) - (b.bm25Rank ?? 1e9));
}
