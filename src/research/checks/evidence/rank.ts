import { readFacts } from '../../quantities/read.js';
import { stem } from '../../text.js';
import type { LocatedSentence } from './sentences.js';

// BM25 over one source's sentences, built once per source and asked once per claim. A claim's numbers
// weigh most, then its names (capitalised words inside the sentence), then the rest by rarity (idf).

const STOPWORDS = new Set(
  'a about above after all also an and any are as at be been before being between both but by can could did do does during each for from had has have he her his how i if in into is it its may me more most must my no nor not of on only or other our over same she should so some such than that the their them then there these they this those through to too under until up very was we were what when where which while who whom why will with within without would you your'.split(
    ' ',
  ),
);

const NUMBER = /^\p{N}/u;
// A token: a run of digits with single separators between them when that run is the whole word
// (`1,000.5`, `'1,000.`), else a run of letters and digits (`U.S.` gives `U` and `S`, `1,000a` gives `1`
// and `000a`). One native match per text: no work per character or per piece in JavaScript.
const TOKEN = /(?<![\p{L}\p{N}][.,'’]*)\p{N}+(?:[.,'’]\p{N}+)+(?![.,'’]*[\p{L}\p{N}])|[\p{L}\p{N}]+/gu;

/** The words and numbers of a text, in order: `1,000.5` is one token, `U.S.` two, `it's` two. */
export function tokens(text: string): string[] {
  return text.match(TOKEN) ?? [];
}

/** A number keeps its decimal point and loses its grouping (`1,000` is `1000`); a word is stemmed. */
export const normalize = (token: string): string =>
  NUMBER.test(token) ? token.replace(/[,'’](?=\p{N}{3}(?!\p{N}))/gu, '') : stem(token);

/**
 * Each term of a claim with its weight: numbers three times, names twice, other words once. The claim's
 * quantities as the quantity reader reads them count as numbers too, so "thirty days" finds a source's
 * "30 days" and "$2.5 million" its "$2,500,000".
 */
export function claimTerms(claim: string): Map<string, number> {
  const weights = new Map<string, number>();
  if (
    /\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|twenty|thirty|forty|fifty|hundred|thousand|million|billion|dozen|half)/i.test(
      claim,
    )
  )
    for (const fact of readFacts(claim))
      for (const key of fact.gives) if (key.startsWith('n:') && !fact.weak) weights.set(key.slice(2), 3);
  let first = true;
  for (const raw of tokens(claim)) {
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

export interface SentenceIndex {
  sentences: LocatedSentence[];
  /** BM25's length normalisation per sentence: k1 · (1 − b + b · length / average). */
  norm: Float64Array;
  /** term → [sentence, count, sentence, count, …] in sentence order. */
  postings: Map<string, number[]>;
  /** Scratch space for one claim's scores, reused (no allocation per claim). */
  scores: Float64Array;
}

/** A term of the index: a stemmed word or a number, and its postings while a source is read. */
interface Term {
  term: string;
  /** The source being read when this term was last asked for. */
  build: number;
  list: number[] | undefined;
}
const STOP: Term = { term: '', build: -1, list: undefined };

/**
 * Words already looked at, shared by the sources of a run: a token costs one map lookup (its postings
 * live on its term while its source is read).
 */
export class Vocabulary {
  private readonly words = new Map<string, Term>();
  private readonly terms = new Map<string, Term>();
  builds = 0;
  term(stemmed: string): Term {
    let t = this.terms.get(stemmed);
    if (!t) {
      t = { term: stemmed, build: 0, list: undefined };
      this.terms.set(stemmed, t);
    }
    return t;
  }
  get(word: string): Term {
    let t = this.words.get(word);
    if (t === undefined) {
      const term = termOf(word);
      t = term ? this.term(term) : STOP;
      this.words.set(word, t);
    }
    return t;
  }
}

/**
 * A word's term ('' for a stopword), remembered for the process: stemming is the costliest step per
 * distinct word, and the runs of one session (a chat, `reports --show`) read much the same words.
 */
const TERMS = new Map<string, string>();
const MAX_TERMS = 100_000;
function termOf(word: string): string {
  let term = TERMS.get(word);
  if (term === undefined) {
    if (TERMS.size >= MAX_TERMS) TERMS.clear();
    term = STOPWORDS.has(word) ? '' : normalize(word);
    TERMS.set(word, term);
  }
  return term;
}

/**
 * One pass over the source's sentences. With `wanted` (the terms of the claims that cite this source),
 * only those terms are posted: the rest only count towards a sentence's length.
 */
export function indexSentences(
  sentences: LocatedSentence[],
  wanted?: Iterable<string>,
  vocabulary: Vocabulary = new Vocabulary(),
): SentenceIndex {
  const build = ++vocabulary.builds;
  const posted: Term[] = [];
  const post = (t: Term) => {
    t.build = build;
    t.list = undefined;
    posted.push(t);
  };
  if (wanted) for (const w of wanted) post(vocabulary.term(w));
  const lengths = new Float64Array(sentences.length);
  let sum = 0;
  for (let i = 0; i < sentences.length; i++) {
    let length = 0;
    for (const word of tokens(sentences[i]!.text.toLowerCase())) {
      const t = vocabulary.get(word);
      if (t === STOP) continue;
      length++;
      if (t.build !== build) {
        if (wanted) continue;
        post(t);
      }
      const list = t.list;
      if (!list) t.list = [i, 1];
      else if (list[list.length - 2] === i) list[list.length - 1]!++;
      else list.push(i, 1);
    }
    lengths[i] = length;
    sum += length;
  }
  const postings = new Map<string, number[]>();
  for (const t of posted) {
    if (t.list) postings.set(t.term, t.list);
    t.list = undefined;
  }
  const average = sum / Math.max(1, lengths.length) || 1;
  const norm = lengths.map((l) => 1.2 * (0.25 + (0.75 * l) / average));
  return { sentences, norm, postings, scores: new Float64Array(sentences.length) };
}

const idf = (index: SentenceIndex, term: string): number => {
  const n = index.sentences.length;
  const df = (index.postings.get(term)?.length ?? 0) / 2;
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
};

/** The best-matching sentence for a claim by BM25, or undefined when no sentence shares a term. */
export function bestSentence(index: SentenceIndex, weights: Map<string, number>): number | undefined {
  const { scores, norm } = index;
  const touched: number[] = [];
  for (const [t, w] of weights) {
    const list = index.postings.get(t);
    if (!list) continue;
    const weight = w * idf(index, t);
    for (let k = 0; k < list.length; k += 2) {
      const i = list[k]!;
      const tf = list[k + 1]!;
      if (scores[i] === 0) touched.push(i);
      scores[i]! += (weight * tf * 2.2) / (tf + norm[i]!);
    }
  }
  let best: number | undefined;
  for (const i of touched)
    if (best === undefined || scores[i]! > scores[best]! || (scores[i] === scores[best] && i < best))
      best = i;
  for (const i of touched) scores[i] = 0;
  return best;
}

/** Whether sentence i holds the term: a binary search of its postings. */
function holds(list: number[] | undefined, i: number): boolean {
  if (!list) return false;
  let lo = 0;
  let hi = list.length / 2 - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const at = list[mid * 2]!;
    if (at === i) return true;
    if (at < i) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

/** How much of the claim's weight the sentences hold, from 0 to 1 (each term by weight × idf). */
export function coverage(index: SentenceIndex, weights: Map<string, number>, sentences: number[]): number {
  let total = 0;
  let held = 0;
  for (const [t, w] of weights) {
    const weight = w * idf(index, t);
    total += weight;
    const list = index.postings.get(t);
    if (sentences.some((i) => holds(list, i))) held += weight;
  }
  return total > 0 ? held / total : 0;
}
