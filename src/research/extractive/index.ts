import type { Store } from '../../store/store.js';
import { getDocument, type PassageHit, queryTerms, searchPassages } from '../documents/index.js';
import type { Source } from '../sources.js';
import { stem, words } from '../text.js';
import { askedBand, type Band, bands, holds, quantities } from './numbers.js';
import { type Quotable, quotables } from './quotables.js';

// The no-key answer: full-text search over every document's passages picks the best passages (so a fact
// deep in a long document is found); the sentences, list items and table rows in them are scored against
// the question and the best are quoted whole, each with what completes it and its citation. Exact phrases
// and the question's numbers, with their comparison ("above $1,000"), weigh above loose word overlap.

export interface ExtractiveAnswer {
  answer: string;
  sources: Source[];
}

interface Candidate extends Quotable {
  doc: number;
  stems: Set<string>;
  /** The core's stems in order, for phrase matches. */
  sequence: string[];
  headingSequence: string[];
  /** Stems of the heading and the sentence before, with the weight each counts for. */
  context: Map<string, number>;
  /** Stems of its document's title: what the document is about. */
  topic: Set<string>;
  /** The search's rank of the best passage it lies in, from 0. */
  passageRank: number;
}

/** Words that ask for a bound; a sentence stating one ("up to $200", "at least 30 days") answers them. */
const UPPER_BOUND = new Set(['limit', 'maximum', 'max', 'cap', 'ceil', 'most', 'threshold']);
const LOWER_BOUND = new Set(['minimum', 'min', 'least', 'floor']);

const QUANTITY =
  /\b(how (much|many|long|often|soon|heavy|fast)|limit|maximum|minimum|cost|price|amount|days?|hours?|weeks?|when|deadline|percent|default)\b/i;

/** Words too common to make a phrase on their own. */
const FILLER = new Set(
  'a an the of to in on at for by with and or is are be do does did can i you we it my our your what which who how when where why this that there'.split(
    ' ',
  ),
);

/**
 * A word of the heading or of the sentence before counts for half a word of the sentence itself; of a
 * heading that is a question (a FAQ's), nearly a whole one: what follows it is the answer to it.
 */
function contextWeights(quotable: Quotable): Map<string, number> {
  const weights = new Map<string, number>();
  for (const w of words(quotable.previous)) weights.set(stem(w), 0.5);
  const weight = quotable.heading.trim().endsWith('?') ? 0.9 : 0.5;
  for (const w of words(quotable.heading)) weights.set(stem(w), Math.max(weight, weights.get(stem(w)) ?? 0));
  return weights;
}

export async function extractiveAnswer(
  store: Store,
  root: string,
  question: string,
  options: {
    documents?: number;
    passages?: number;
    sentences?: number;
    /** The run's passage search (hybrid retrieval); BM25 over the folder when absent. */
    search?: (query: string, limit: number) => Promise<PassageHit[]>;
    /**
     * The search understands wording (embeddings): a sentence of a passage it ranked high counts for
     * something even when it shares no word with the question.
     */
    rankPrior?: boolean;
  } = {},
): Promise<ExtractiveAnswer> {
  // The best passages, from at most `documents` documents, numbered by the rank of their document's best.
  const hits: PassageHit[] = [];
  const ranges = new Map<number, [number, number, number][]>();
  let passageRank = 0;
  const bodies: string[] = [];
  const search = options.search ?? ((query, limit) => searchPassages(store, root, query, limit));
  for (const passage of await search(question, options.passages ?? 16)) {
    let doc = hits.findIndex((h) => h.slug === passage.slug);
    if (doc < 0) {
      if (hits.length >= (options.documents ?? 4)) continue;
      doc = hits.push(passage) - 1;
      bodies[doc] = (await getDocument(store, root, passage.slug))?.body ?? passage.text;
    }
    const start = bodies[doc]!.indexOf(passage.text);
    if (start >= 0)
      ranges.set(doc, [...(ranges.get(doc) ?? []), [start, start + passage.text.length, passageRank]]);
    passageRank++;
  }
  // The quotables of each document that lie in a matching passage; the whole document is parsed, so a table
  // row keeps its header and a sentence its list even across a passage's edge.
  const candidates: Candidate[] = [];
  hits.forEach((_, doc) => {
    const inside = ranges.get(doc) ?? [];
    for (const quotable of quotables(bodies[doc]!)) {
      const within = inside.filter(([a, b]) => quotable.start < b && quotable.end > a);
      if (within.length === 0) continue;
      const sequence = words(quotable.core).map(stem);
      candidates.push({
        ...quotable,
        doc,
        sequence,
        stems: new Set([...sequence, ...words(quotable.text).map(stem)]),
        headingSequence: words(quotable.heading).map(stem),
        context: contextWeights(quotable),
        topic: new Set(words(hits[doc]!.title ?? '').map(stem)),
        passageRank: Math.min(...within.map((r) => r[2])),
      });
    }
  });
  const terms = [...new Set(queryTerms(question).map(stem))];
  if (terms.length === 0 || candidates.length === 0) return { answer: '', sources: [] };

  const chosen = choose(rank(question, terms, candidates, options.rankPrior), options.sentences ?? 4);

  // Sources are numbered in the order the answer first cites them.
  const sources: Source[] = [];
  const numberOf = new Map<number, number>();
  const lines = chosen.map((c) => {
    if (!numberOf.has(c.doc)) {
      const hit = hits[c.doc]!;
      sources.push({
        n: sources.length + 1,
        kind: 'document',
        title: hit.title,
        location: hit.path,
        slug: hit.slug,
        text: '',
        status: 'read',
      });
      numberOf.set(c.doc, sources.length);
    }
    return `- ${c.text} [${numberOf.get(c.doc)}]`;
  });
  return { answer: lines.join('\n'), sources };
}

function rank(question: string, terms: string[], candidates: Candidate[], rankPrior = false) {
  // Rarer words say more: weight each term by its inverse frequency among the candidates.
  const idf = new Map(
    terms.map((t) => {
      const df = candidates.filter((c) => c.stems.has(t)).length;
      return [t, Math.log(1 + candidates.length / (df + 0.5))];
    }),
  );
  const maxIdf = Math.max(...idf.values());
  const wantsQuantity = QUANTITY.test(question);
  const wantsBound = terms.some((t) => UPPER_BOUND.has(t) || LOWER_BOUND.has(t));
  const asked = quantities(question);
  // The question's phrases: neighbouring words, not both filler ("finance director", "above 1").
  const sequence = words(question).map(stem);
  const phrases = sequence
    .slice(1)
    .map((w, i) => [sequence[i]!, w] as const)
    .filter(([a, b]) => !(FILLER.has(a) && FILLER.has(b)));
  return candidates
    .map((c) => {
      let score = 0;
      const bounds = wantsBound ? quantities(c.core).map((q) => q.comparison) : [];
      for (const t of terms) {
        if (c.stems.has(t)) score += idf.get(t)!;
        else if (
          (UPPER_BOUND.has(t) && bounds.includes('lt')) ||
          (LOWER_BOUND.has(t) && bounds.includes('gt'))
        )
          score += idf.get(t)!;
        else score += idf.get(t)! * (c.context.get(t) ?? 0);
      }
      // A sentence of the document that is about the question's subject (its title names it) says it
      // first-hand; another document's mention of it points there.
      if (terms.some((t) => c.topic.has(t))) score *= 1.25;
      for (const [a, b] of phrases) {
        const bonus = ((idf.get(a) ?? 0) + (idf.get(b) ?? 0)) * 0.5 || maxIdf * 0.25;
        if (hasPhrase(c.sequence, a, b)) score += bonus;
        else if (hasPhrase(c.headingSequence, a, b)) score += bonus * (c.context.get(a) ?? 0);
      }
      score += numberScore(c.text, asked) * maxIdf;
      if (rankPrior) score += maxIdf / (2 + c.passageRank);
      if (
        wantsQuantity &&
        /[$€£]\s?\d|\d+\s?(%|days?|hours?|weeks?|months?|years?|km|kg|seconds?|`)/i.test(c.text)
      )
        score *= 1.2;
      score *= 1 - 0.08 * c.doc; // the search's own ranking of the documents
      const length = words(c.core).length;
      score /= 1 + Math.max(0, length - 30) * 0.02; // prefer the sentence that says it, not a paragraph around it
      return { ...c, score };
    })
    .filter((c) => c.score > 0)
    .sort((a, b) => b.score - a.score);
}

const hasPhrase = (sequence: string[], a: string, b: string) =>
  sequence.some((w, i) => w === a && sequence[i + 1] === b);

/**
 * The question's numbers in the sentence: the same number with the same comparison ("above $1,000" and
 * "above $1,000") counts most; the same number compared the other way ("up to $1,000") a little; a band
 * that holds the amount asked about ("$600" in "above $150 and up to $1,000") in between.
 */
function numberScore(text: string, asked: ReturnType<typeof quantities>): number {
  if (!asked.length) return 0;
  const own = quantities(text);
  const stated: Band[] = bands(text);
  let score = 0;
  for (const q of asked) {
    const same = own.filter((o) => o.value === q.value);
    if (same.some((o) => o.comparison === q.comparison)) score += q.comparison ? 2.5 : 1;
    else if (same.length) score += 0.5;
    if (stated.some((b) => holds(b, askedBand(q)))) score += 1.5;
  }
  return score;
}

/** The best quotes, at most `limit`, within reach of the best, never two that share a line. */
function choose<T extends Candidate & { score: number }>(scored: T[], limit: number): T[] {
  const best = scored[0]?.score ?? 0;
  const chosen: T[] = [];
  for (const c of scored) {
    if (chosen.length >= limit || c.score < best * 0.55) break;
    const overlaps = chosen.some(
      (x) => x.text === c.text || (x.doc === c.doc && x.span[0] <= c.span[1] && c.span[0] <= x.span[1]),
    );
    if (!overlaps) chosen.push(c);
  }
  return chosen;
}

/** "$5,000 to $50,000", "up to $500", "above $50,000": does the sentence's band contain the amount? */
export function coversAmount(sentence: string, amount: number): boolean {
  return bands(sentence).some((b) => holds(b, { low: amount, high: amount, lowInclusive: true }));
}
