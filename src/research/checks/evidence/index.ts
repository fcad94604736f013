import type { Source } from '../../sources.js';
import { CITE, type Claim as CitedClaim, citedClaims } from '../claims.js';
import { linkTo } from './fragment.js';
import {
  bestSentence,
  claimTerms,
  coverage,
  indexSentences,
  type SentenceIndex,
  Vocabulary,
} from './rank.js';
import { type LocatedSentence, locatedSentences } from './sentences.js';

// Evidence: for every cited claim of the answer, the sentence (or two) in each cited source that best
// supports it, and where it is. No model: BM25 over the source's sentences, deterministic and fast.

export interface Evidence {
  /** The claim as the answer writes it. */
  sentence: string;
  cite: number;
  /** The source's supporting sentence(s); null when nothing in the source is close ("no supporting passage found"). */
  quote: string | null;
  /** `page 3` for a PDF, the heading path for a document or page, else the source's title; '' when no quote. */
  where: string;
  /** A web page's URL with a text fragment that scrolls to the quote; null otherwise. */
  url: string | null;
  /** The share of the claim's weighted terms the quote holds, 0 to 1; 0 when no quote. */
  score: number;
}

/**
 * Below this share of its weighted terms, a source holds nothing close to the claim. Low on purpose: a
 * sentence that restates its source in other words must not be flagged (see the restatement table in
 * test/research/evidence.test.ts); a wrong number is the grounding check's to catch, not this one's.
 */
export const MIN_SCORE = 0.3;
/** A neighbouring sentence joins the quote when it adds this much of the claim (a claim drawn from two). */
const NEIGHBOUR_GAIN = 0.15;

export type EvidenceSource = Pick<Source, 'n' | 'kind' | 'title' | 'location' | 'text'>;

/**
 * `ahead`: sources already indexed (by text, every term posted: see indexSentences), e.g. while the
 * answer was being written.
 */
export function findEvidence(
  answer: string,
  sources: EvidenceSource[],
  ahead?: ReadonlyMap<string, SentenceIndex>,
): Evidence[] {
  const byNumber = new Map(sources.map((s) => [s.n, s]));
  const claims = citedClaims(answer).map((claim) => ({
    claim,
    weights: claimTerms(claim.text.replace(CITE, ' ')),
  }));
  // Each source is read once, for the terms of the claims that cite it, and its index is dropped once
  // those claims have their evidence: a run holds one source's sentences at a time, not twenty.
  const slots: (Evidence | undefined)[] = [];
  const bySource = new Map<number, { wanted: Set<string>; asks: { slot: number; at: number }[] }>();
  claims.forEach(({ claim, weights }, at) => {
    for (const n of claim.cites) {
      if (!byNumber.has(n)) continue; // a citation that names no source: the citation check reports it
      let entry = bySource.get(n);
      if (!entry) {
        entry = { wanted: new Set<string>(), asks: [] };
        bySource.set(n, entry);
      }
      for (const t of weights.keys()) entry.wanted.add(t);
      entry.asks.push({ slot: slots.length, at });
      slots.push(undefined);
    }
  });
  const vocabulary = new Vocabulary();
  for (const [n, { wanted, asks }] of bySource) {
    const source = byNumber.get(n)!;
    const index =
      ahead?.get(source.text) ?? indexSentences(locatedSentences(source.text), wanted, vocabulary);
    for (const { slot, at } of asks)
      slots[slot] = evidenceFor(claims[at]!.claim, source, index, claims[at]!.weights);
  }
  return slots as Evidence[];
}

function evidenceFor(
  claim: CitedClaim,
  source: EvidenceSource,
  index: SentenceIndex,
  weights: Map<string, number>,
): Evidence {
  const none: Evidence = {
    sentence: claim.text,
    cite: source.n,
    quote: null,
    where: '',
    url: null,
    score: 0,
  };
  const best = bestSentence(index, weights);
  if (best === undefined) return none;
  let chosen = [best];
  let score = coverage(index, weights, chosen);
  // A claim that joins two facts of one paragraph: the sentence before or after may hold the rest.
  for (const j of [best - 1, best + 1]) {
    const s = index.sentences[j];
    if (!s || s.headingPath !== index.sentences[best]!.headingPath) continue;
    const pair = [Math.min(best, j), Math.max(best, j)];
    const paired = coverage(index, weights, pair);
    if (paired >= score + NEIGHBOUR_GAIN) {
      chosen = pair;
      score = paired;
    }
  }
  if (score < MIN_SCORE) return none;
  const quote = chosen.map((i) => index.sentences[i]!);
  return {
    sentence: claim.text,
    cite: source.n,
    quote: quote.map((s) => s.text).join(' '),
    where: whereOf(quote[0]!, source),
    url: source.kind === 'web' ? webLink(source.location, quote) : null,
    score: Math.round(score * 100) / 100,
  };
}

function whereOf(s: LocatedSentence, source: EvidenceSource): string {
  if (s.page !== undefined) return `page ${s.page}`;
  return s.headingPath || source.title;
}

/** A PDF viewer opens at a page (`#page=n`); any other page gets a text fragment. */
function webLink(url: string, quote: LocatedSentence[]): string {
  const page = quote[0]!.page;
  if (page !== undefined) return `${url.split('#')[0]}#page=${page}`;
  return linkTo(url, quote);
}

/** The claims whose every cited source holds nothing close to them, in answer order. */
export function unsupportedClaims(evidence: Evidence[]): { sentence: string; cites: number[] }[] {
  const byClaim = new Map<string, { sentence: string; cites: number[]; found: boolean }>();
  for (const e of evidence) {
    const entry = byClaim.get(e.sentence) ?? { sentence: e.sentence, cites: [], found: false };
    entry.cites.push(e.cite);
    entry.found ||= e.quote !== null;
    byClaim.set(e.sentence, entry);
  }
  return [...byClaim.values()].filter((c) => !c.found).map(({ sentence, cites }) => ({ sentence, cites }));
}
