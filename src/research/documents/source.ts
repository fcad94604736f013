import type { DocumentInfo, Store } from '../../store/store.js';
import { stem, words } from '../text.js';
import { splitPassages } from './passages.js';
import { type PassageSpan, queryTerms, rankPassages } from './search.js';
import { trustedText } from './trust.js';

// A document as one source for a model. A document that fits the budget is sent whole; a longer one as
// the passages that best match the question and the plan's searches, in document order, each under its
// heading path, with […] wherever something was left out.

export interface DocumentSourceText {
  text: string;
  /** True when only some passages were sent. */
  excerpted: boolean;
}

/** A document as a source: its text as above, with what the source list shows of it. */
export interface IndexedDocumentSource extends DocumentSourceText {
  title: string;
  path: string;
}

interface Row {
  ordinal: number;
  headingPath: string;
  text: string;
}

export const GAP = '[…]';

/** What ranks a document's passages for a run (research/retrieval/'s Retriever). */
export interface PassageRanker {
  /** The folder's documents best for `query`, best first (what the planner is shown of a large folder). */
  rankDocuments(query: string, limit: number): Promise<DocumentInfo[]>;
  rankInDocument(documentId: number, slug: string, queries: string[]): Promise<number[]>;
  /** The passages (ordinals) sent of the document. */
  sent(slug: string, ordinals: number[]): void;
}

/**
 * The text of document `slug` to send as a source, at most `budget` characters. `queries` are the
 * question and then the plan's searches. Undefined when the folder has no such document.
 */
export async function documentSource(
  store: Store,
  root: string,
  slug: string,
  queries: string[],
  budget: number,
  /** Ranks a long document's passages (hybrid retrieval) and is told which were sent; else BM25. */
  retriever?: PassageRanker,
): Promise<IndexedDocumentSource | undefined> {
  const doc = await store.index.find(root, slug);
  if (!doc) return undefined;
  const { id, title, path } = doc;
  // A stored text that its file no longer says (a team database's index written by another) is not used.
  const trusted = await trustedText(store, root, { ...doc, slug });
  if (trusted?.fromFile) return { ...textSource(trusted.text, title, queries, budget), title, path };
  if (doc.length <= budget)
    return { text: trusted?.text ?? (await store.index.text(id)), excerpted: false, title, path };

  // Only the blocks of the passages sent are read from the index.
  const span = store.index.spanReader();
  const textOf = (start: number, end: number) => span(id, start, end);
  const [spans, ranked] = await Promise.all([
    store.index.passageSpans(id),
    retriever ? retriever.rankInDocument(id, slug, queries) : rankPassages(store, id, queries),
  ]);
  const { order, ...sent } = await excerpt(spans, ranked, title, budget, textOf);
  retriever?.sent(slug, order);
  return { ...sent, title, path };
}

/**
 * The same for a text that is not in the index (a long web page or PDF read by URL): split into passages
 * as documents are, ranked in memory with BM25 over the same terms.
 */
export function textSource(
  text: string,
  title: string,
  queries: string[],
  budget: number,
): DocumentSourceText {
  if (text.length <= budget) return { text, excerpted: false };
  const passages = splitPassages(text);
  const { order, last } = excerptOrder(passages, rankInMemory(passages, queries), title, budget);
  if (order.length === 0) return { text: text.slice(0, budget), excerpted: true };
  const picked = order.map((o) => ({ ...passages[o]! }));
  return { text: renderExcerpt(picked, last, title), excerpted: true };
}

/** The best passages that fit the budget (ranked ones, then their neighbours), in document order. */
async function excerpt(
  passages: PassageSpan[],
  ranked: number[],
  title: string,
  budget: number,
  textOf: (start: number, end: number) => Promise<string>,
): Promise<DocumentSourceText & { order: number[] }> {
  const { order, last } = excerptOrder(passages, ranked, title, budget);
  if (order.length === 0) return { text: await textOf(0, budget), excerpted: true, order };
  const picked: Row[] = [];
  for (const o of order)
    picked.push({ ...passages[o]!, text: await textOf(passages[o]!.start, passages[o]!.end) });
  return { text: renderExcerpt(picked, last, title), excerpted: true, order };
}

/** The ordinals of the passages chosen, in document order, and the last passage's ordinal. */
function excerptOrder(
  passages: PassageSpan[],
  ranked: number[],
  title: string,
  budget: number,
): { order: number[]; last: number } {
  const last = passages.length - 1;
  // When no query matches anything, the document's beginning is the best guess.
  const order = ranked.length ? [...ranked, ...neighbours(ranked, last)] : passages.map((p) => p.ordinal);

  const chosen = new Set<number>();
  let spent = GAP.length + 2; // the closing gap marker
  for (const ordinal of order) {
    if (chosen.has(ordinal)) continue;
    const p = passages[ordinal]!;
    // An upper bound of what the passage adds: its heading line, a gap marker and blank lines.
    const cost = p.end - p.start + (p.headingPath || title).length + GAP.length + 9;
    if (spent + cost > budget) continue;
    chosen.add(ordinal);
    spent += cost;
  }
  return { order: [...chosen].sort((a, b) => a - b), last };
}

/**
 * BM25 (k1 1.2, b 0.75) over passages held in memory, with the stemming the index uses; as in
 * rankPassages, each query's scores are scaled so its best passage scores 1, then added up.
 */
function rankInMemory(passages: Row[], queries: string[]): number[] {
  // Term counts per passage, made once: a 10 MB PDF has thousands of passages and each query looks up
  // every term in each of them.
  const bags = passages.map((p) => {
    const counts = new Map<string, number>();
    const stems = words(`${p.headingPath} ${p.text}`).map(stem);
    for (const w of stems) counts.set(w, (counts.get(w) ?? 0) + 1);
    return { counts, length: stems.length };
  });
  const avg = bags.reduce((n, b) => n + b.length, 0) / Math.max(1, bags.length);
  const df = new Map<string, number>();
  for (const bag of bags) for (const t of bag.counts.keys()) df.set(t, (df.get(t) ?? 0) + 1);
  const total = new Map<number, number>();
  for (const query of queries) {
    const terms = [...new Set(queryTerms(query).map(stem))];
    const scores = bags.map((bag) => {
      let score = 0;
      for (const t of terms) {
        const tf = bag.counts.get(t);
        if (!tf) continue;
        const idf = Math.log(1 + (bags.length - df.get(t)! + 0.5) / (df.get(t)! + 0.5));
        score += (idf * tf * 2.2) / (tf + 1.2 * (0.25 + (0.75 * bag.length) / avg));
      }
      return score;
    });
    const best = scores.reduce((a, b) => Math.max(a, b), 0);
    if (best <= 0) continue;
    scores.forEach((s, i) => {
      if (s > 0) total.set(passages[i]!.ordinal, (total.get(passages[i]!.ordinal) ?? 0) + s / best);
    });
  }
  return [...total.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]).map(([ordinal]) => ordinal);
}

/**
 * After the ranked passages, the ones beside them: a table's header or a definition is often just
 * before the passage that matched. Nearest first, in the order of the ranking.
 */
function neighbours(ranked: number[], last: number): number[] {
  const out: number[] = [];
  for (let distance = 1; distance <= 3; distance++)
    for (const o of ranked)
      for (const n of [o - distance, o + distance]) if (n >= 0 && n <= last) out.push(n);
  return out;
}

/** Passages in document order; a heading line where a section starts, […] where passages were left out. */
export function renderExcerpt(picked: Row[], last: number, title: string): string {
  const parts: string[] = [];
  let previous: Row | undefined;
  for (const p of picked) {
    const gap = previous ? p.ordinal > previous.ordinal + 1 : p.ordinal > 0;
    if (gap) parts.push(GAP);
    if (gap || !previous || p.headingPath !== previous.headingPath)
      parts.push(`## ${p.headingPath || title}`);
    parts.push(p.text);
    previous = p;
  }
  if (previous && previous.ordinal < last) parts.push(GAP);
  return parts.join('\n\n');
}
