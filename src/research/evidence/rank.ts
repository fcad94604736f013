import { stem } from '../text.js';
import type { LocatedSentence } from './sentences.js';

// BM25 over one source's sentences, built once per source and asked once per claim. A claim's numbers
// weigh most, then its names (capitalised words inside the sentence), then the rest by rarity (idf).

const STOPWORDS = new Set(
  'a about above after all also an and any are as at be been before being between both but by can could did do does during each for from had has have he her his how i if in into is it its may me more most must my no nor not of on only or other our over same she should so some such than that the their them then there these they this those through to too under until up very was we were what when where which while who whom why will with within without would you your'.split(
    ' ',
  ),
);

const NUMBER = /^\p{N}/u;
const TOKEN = /\p{N}+(?:[.,'’]\p{N}+)*|[\p{L}\p{N}]+/gu;

/** A number keeps its decimal point and loses its grouping (`1,000` is `1000`); a word is stemmed. */
export const normalize = (token: string): string =>
  NUMBER.test(token) ? token.replace(/[,'’](?=\p{N}{3}(?!\p{N}))/gu, '') : stem(token);

export function terms(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(TOKEN)) {
    const t = m[0].toLowerCase();
    if (!STOPWORDS.has(t)) out.push(normalize(t));
  }
  return out;
}

/** Each term of a claim with its weight: numbers three times, names twice, other words once. */
export function claimTerms(claim: string): Map<string, number> {
  const weights = new Map<string, number>();
  let first = true;
  for (const m of claim.matchAll(TOKEN)) {
    const raw = m[0];
    const lower = raw.toLowerCase();
    const isFirst = first;
    first = false;
    if (STOPWORDS.has(lower)) continue;
    const weight = NUMBER.test(raw) ? 3 : !isFirst && /^\p{Lu}/u.test(raw) ? 2 : 1;
    const t = normalize(lower);
    weights.set(t, Math.max(weights.get(t) ?? 0, weight));
  }
  return weights;
}

export interface SourceIndex {
  sentences: LocatedSentence[];
  bags: Map<string, number>[];
  lengths: number[];
  average: number;
  /** term → the sentences holding it, in order. */
  postings: Map<string, number[]>;
}

export function indexSentences(sentences: LocatedSentence[]): SourceIndex {
  const bags: Map<string, number>[] = [];
  const lengths: number[] = [];
  const postings = new Map<string, number[]>();
  sentences.forEach((s, i) => {
    const bag = new Map<string, number>();
    const ts = terms(s.text);
    for (const t of ts) bag.set(t, (bag.get(t) ?? 0) + 1);
    for (const t of bag.keys()) {
      const list = postings.get(t);
      if (list) list.push(i);
      else postings.set(t, [i]);
    }
    bags.push(bag);
    lengths.push(ts.length);
  });
  const average = lengths.reduce((a, b) => a + b, 0) / Math.max(1, lengths.length);
  return { sentences, bags, lengths, average, postings };
}

const idf = (index: SourceIndex, term: string): number => {
  const n = index.sentences.length;
  const df = index.postings.get(term)?.length ?? 0;
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
};

/** The best-matching sentences for a claim, best first (at most `limit`), with their BM25 scores. */
export function bestSentences(
  index: SourceIndex,
  weights: Map<string, number>,
  limit = 3,
): { i: number; score: number }[] {
  const scores = new Map<number, number>();
  for (const [t, w] of weights) {
    const list = index.postings.get(t);
    if (!list) continue;
    const weight = w * idf(index, t);
    for (const i of list) {
      const tf = index.bags[i]!.get(t)!;
      const norm = 1.2 * (0.25 + (0.75 * index.lengths[i]!) / (index.average || 1));
      scores.set(i, (scores.get(i) ?? 0) + (weight * tf * 2.2) / (tf + norm));
    }
  }
  return [...scores.entries()]
    .map(([i, score]) => ({ i, score }))
    .sort((a, b) => b.score - a.score || a.i - b.i)
    .slice(0, limit);
}

/** How much of the claim's weight the sentences hold, from 0 to 1 (each term by weight × idf). */
export function coverage(index: SourceIndex, weights: Map<string, number>, sentences: number[]): number {
  let total = 0;
  let held = 0;
  for (const [t, w] of weights) {
    const weight = w * idf(index, t);
    total += weight;
    if (sentences.some((i) => index.bags[i]!.has(t))) held += weight;
  }
  return total > 0 ? held / total : 0;
}
