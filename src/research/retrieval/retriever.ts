import { AbortedError, errorMessage, ProviderError } from '../../errors.js';
import { costOf, findPrice, type PriceTable } from '../../providers/prices.js';
import type { DocumentInfo, PassageHit, PassageSpanHit, Store, VectorHit } from '../../store/store.js';
import { passageHit } from '../../store/texts.js';
import { emptyUsage } from '../../types.js';
import { queryTerms, rankPassages } from '../documents/search.js';
import { limiter } from '../model-call.js';
import { CHARS_PER_TOKEN } from '../run/budget.js';
import type { Purse } from '../run/purse.js';
import { noRunUsage } from '../run/usage.js';
import { words } from '../text.js';
import type { ResearchEvent, RunUsage } from '../types.js';
import { embedMissing } from './embed-index.js';
import { EmbedLedger } from './embed-ledger.js';
import { embedOnce } from './embed-once.js';
import type { FolderIO } from './folder-io.js';
import { coverage, exactMatchers, exactTokens, type Fused, fuse, leadWeights } from './fuse.js';
import type { PassageRank, RetrievalMode, RetrievalReport, RetrievalSetup } from './settings.js';

export type { PassageRank, RetrievalReport };

// One run's retrieval over the local documents: BM25 alone, or fused with the nearest passage vectors.
// Every embedding call is recorded in the ledger (step `embed`) and counts under --max-cost; each query
// is embedded once. Any embedding fault (server down or slow, a wrong dimension, a cap reached) is said
// once and the run goes on by keywords alone.

/** Candidates each list gives to the fusion. */
const CANDIDATES = 50;
/** A long document's passages that are sent whatever the other ranking made of them, from each list. */
const HEADS = 2;

export interface RetrieverContext {
  store: Store;
  root: string;
  /** The ledger's run id the embedding calls are billed under. */
  runId: string;
  userPrices?: PriceTable;
  signal?: AbortSignal;
  emit: (e: ResearchEvent) => void;
  /** The run's spending cap, when it has one. */
  purse?: Purse;
  /** Embedding requests in flight at once (the run's --concurrency). */
  concurrency: number;
}

/** A passage given to the model (or quoted), as `--json` "retrieval" lists it. */

export type RankedPassage = PassageHit & Omit<PassageRank, 'document'>;

export class Retriever {
  mode: RetrievalMode;
  private fallbackReason?: string;
  private space?: string;
  private dims?: number;
  private readonly queries = new Map<string, Promise<ArrayLike<number> | undefined>>();
  private readonly given = new Map<string, PassageRank>();
  /** Each ranked document's passages by ordinal, with their ranks. */
  private readonly documents = new Map<string, Map<number, Fused<number>>>();
  private readonly slots;
  readonly usage: RunUsage = noRunUsage();
  private readonly ledger: EmbedLedger;

  constructor(
    private readonly setup: RetrievalSetup,
    private readonly ctx: RetrieverContext,
  ) {
    this.mode = setup.embedder ? setup.mode : 'bm25';
    this.slots = limiter(Math.max(1, ctx.concurrency));
    this.ledger = new EmbedLedger(ctx.store, ctx.userPrices);
  }

  /** Whether the run searches with vectors (hybrid or semantic, not fallen back). */
  get usesVectors(): boolean {
    return this.mode !== 'bm25';
  }

  /**
   * After the index is refreshed: checks that the store can keep vectors, learns the model's dimensions
   * from the question's vector, and embeds the passages that have none yet.
   */
  async prepare(question: string, onProgress?: (done: number, total: number) => void): Promise<void> {
    if (!this.usesVectors) return;
    const missing = await this.ctx.store.vectors.unavailable();
    if (missing) return this.fallBack(missing);
    if (!(await this.queryVector(question))) return;
    // A read-only database is searched with the vectors it has: passages without one rank by keywords.
    if (this.ctx.store.readOnly) return;
    try {
      await embedOnce(this.ctx.store, this.ctx.root, this.space!, () => this.embedFolder(onProgress));
    } catch (error) {
      this.fallBack(error);
    }
  }

  private async embedFolder(onProgress?: (done: number, total: number) => void): Promise<void> {
    await this.ctx.store.vectors.prune();
    let count: number;
    try {
      count = await embedMissing(
        { space: this.space!, embedTexts: (texts, record) => this.embedTexts(texts, record) },
        this.ctx.store,
        this.ctx.root,
        {
          parallel: Math.min(4, this.ctx.concurrency),
          signal: this.ctx.signal,
          onProgress: onProgress && ((p) => onProgress(p.done, p.total)),
        },
      );
    } finally {
      // Every call's row is written (or has failed) before the step ends, however it ends.
      await this.ledger.settle();
    }
    this.ledger.check();
    if (count && onProgress) onProgress(count, count);
  }

  /** The folder's passages best for `query`, best first, each with its ranks (and reported as given). */
  async passages(query: string, limit: number): Promise<RankedPassage[]> {
    return this.record(await this.search(query, limit));
  }

  /**
   * The folder's documents best for `query`, best first: those of its best passages (as passages()
   * ranks them), then those keyword search ranks best. What the planner is shown of a large folder.
   */
  async rankDocuments(query: string, limit: number): Promise<DocumentInfo[]> {
    const { store, root } = this.ctx;
    const terms = queryTerms(query);
    const byKeywords = terms.length ? await store.index.searchDocuments(root, terms, limit) : [];
    if (!this.usesVectors) return byKeywords;
    const out = new Map<string, DocumentInfo>();
    for (const { slug, title, path } of [...(await this.search(query, CANDIDATES, false)), ...byKeywords])
      if (out.size < limit && !out.has(slug)) out.set(slug, { slug, title, path });
    return [...out.values()];
  }

  /** The folder's passages best for `query`, fused; `texts` false: their texts are not read. */
  private async search(query: string, limit: number, texts = true): Promise<RankedPassage[]> {
    const { store, root } = this.ctx;
    const terms = queryTerms(query);
    const vector = this.usesVectors ? await this.queryVector(query) : undefined;
    if (!vector || !this.space) {
      const hits = terms.length ? await store.index.searchPassages(root, terms, limit) : [];
      return hits.map((h, i) => ({ ...h, bm25Rank: i + 1, vectorRank: null, score: h.score }));
    }
    const semantic = this.mode === 'semantic';
    const exact = semantic ? [] : exactTokens(query);
    // The three searches at once (on a team database each is a statement of its own), as spans: a text
    // is read only where it counts — every candidate's when the query has exact tokens, the best keyword
    // passage's (how much of the question it holds), those returned — and as soon as its list is in.
    // Reading all hundred candidates' was a fifth of a team database's hybrid query.
    const read = store.index.spanReader();
    const known = new Map<string, string>();
    const load = async (hits: PassageSpanHit[]) => {
      await Promise.all(
        hits.map(async (h) => {
          if (!known.has(keyOf(h))) known.set(keyOf(h), await read(h.documentId, h.start, h.end));
        }),
      );
      return hits;
    };
    const text = (h: PassageSpanHit) => known.get(keyOf(h)) ?? '';
    const [bm25, nearHits, extra] = await Promise.all([
      !semantic && terms.length
        ? store.index.searchPassageSpans(root, terms, CANDIDATES).then(async (hits) => {
            await load(exact.length ? hits : hits.slice(0, 1));
            return hits;
          })
        : [],
      this.nearest(vector, CANDIDATES).then((near) => {
        const hits = near?.map(spanOf);
        return hits && exact.length ? load(hits) : hits;
      }),
      // Passages that hold the exact tokens are candidates even when neither list ranked them high.
      exact.length ? store.index.searchPassageSpans(root, queryTerms(exact.join(' ')), 10).then(load) : [],
    ]);
    // The vector search failed and the run fell back: this query, and the rest, by keywords.
    if (!nearHits) return this.search(query, limit, texts);
    const fused = fuse(
      bm25,
      nearHits,
      keyOf,
      (h) => `${h.headingPath}\n${text(h)}`,
      exactMatchers(exact),
      extra,
      semantic || !bm25[0]
        ? undefined
        : leadWeights(coverage(terms, words(`${bm25[0].headingPath} ${text(bm25[0])}`))),
    );
    const best = fused.slice(0, limit);
    if (texts) await load(best.map((f) => f.item));
    return best.map((f) => ranked(f, text(f.item)));
  }

  /**
   * The ordinals of one document's passages best for the queries, best first: BM25 (rankPassages) fused
   * with each query's nearest passages of the document (their similarities added up), weighted as in
   * passages() by how much of a query the document's best keyword passage holds.
   */
  async rankInDocument(documentId: number, slug: string, queries: string[]): Promise<number[]> {
    const bm25 = await rankPassages(this.ctx.store, documentId, queries);
    const scores = new Map<number, number>();
    for (const query of this.usesVectors ? queries : []) {
      const vector = await this.queryVector(query);
      if (!vector || !this.space) break;
      const near = await this.nearest(vector, CANDIDATES, documentId);
      if (!near) break;
      for (const h of near) scores.set(h.ordinal, (scores.get(h.ordinal) ?? 0) + h.similarity);
    }
    const vector = [...scores.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]).map(([o]) => o);
    const semantic = this.mode === 'semantic';
    const fused = !this.usesVectors
      ? fuse(bm25, [], String, () => '')
      : semantic || bm25[0] === undefined
        ? fuse([], vector, String, () => '')
        : fuse(
            bm25,
            vector,
            String,
            () => '',
            [],
            [],
            await this.documentWeights(documentId, bm25[0], queries),
          );
    this.documents.set(slug, new Map(fused.map((f) => [f.item, f])));
    // Each list's best passages go first, in fused order: a passage only the vectors find (its words are
    // not the question's) is not crowded out by many that match a common word of the question weakly.
    const heads = new Set([...(semantic ? [] : bm25.slice(0, HEADS)), ...vector.slice(0, HEADS)]);
    return [...fused.filter((f) => heads.has(f.item)), ...fused.filter((f) => !heads.has(f.item))].map(
      (f) => f.item,
    );
  }

  /** leadWeights from the share of the best-held query's words that the document's best passage holds. */
  private async documentWeights(documentId: number, best: number, queries: string[]) {
    const { index } = this.ctx.store;
    const span = (await index.passageSpans(documentId)).find((s) => s.ordinal === best);
    const text = span ? await index.spanReader()(documentId, span.start, span.end) : '';
    const held = words(`${span?.headingPath ?? ''} ${text}`);
    return leadWeights(Math.max(0, ...queries.map((q) => coverage(queryTerms(q), held))));
  }

  /** The passages documentSource sent of a document it ranked: they go into the run's report. */
  sent(slug: string, ordinals: number[]): void {
    const ranks = this.documents.get(slug);
    for (const o of ordinals) {
      const f = ranks?.get(o);
      this.given.set(`${slug}#${o}`, {
        document: slug,
        bm25Rank: f?.bm25Rank ?? null,
        vectorRank: f?.vectorRank ?? null,
        score: f?.score ?? 0,
      });
    }
  }

  report(): RetrievalReport {
    return {
      mode: this.mode,
      embeddings: this.setup.embedder?.label ?? null,
      passages: [...this.given.values()],
      ...(this.fallbackReason ? { fallback: this.fallbackReason } : {}),
    };
  }

  private record(hits: RankedPassage[]): RankedPassage[] {
    for (const h of hits)
      this.given.set(`${h.slug}#${h.ordinal}`, {
        document: h.slug,
        bm25Rank: h.bm25Rank,
        vectorRank: h.vectorRank,
        score: h.score,
      });
    return hits;
  }

  /**
   * The store's nearest passages (the folder's, or one document's). A fault there (a role without the
   * rights, pgvector gone) is said once and the run goes on by keywords: undefined.
   */
  private async nearest(
    vector: ArrayLike<number>,
    limit: number,
    documentId?: number,
  ): Promise<VectorHit[] | undefined> {
    try {
      return await this.ctx.store.vectors.nearest(this.ctx.root, this.space!, vector, limit, documentId);
    } catch (error) {
      this.fallBack(error);
      return undefined;
    }
  }

  /** The query's vector, embedded once per run; undefined once retrieval has fallen back. */
  private queryVector(query: string): Promise<ArrayLike<number> | undefined> {
    let pending = this.queries.get(query);
    if (!pending) {
      pending = this.embedTexts([query]).then(
        ([v]) => v,
        (error) => {
          this.fallBack(error);
          return undefined;
        },
      );
      this.queries.set(query, pending);
    }
    return pending;
  }

  /**
   * One embedding request: under the cap, in a slot, recorded (a folder's calls through `record`, not
   * waited for), its vectors checked to be of one size.
   */
  private async embedTexts(texts: string[], record?: FolderIO['record']): Promise<ArrayLike<number>[]> {
    const embedder = this.setup.embedder!;
    const { purse, userPrices, signal } = this.ctx;
    const price = findPrice(embedder.provider, embedder.model, userPrices);
    if (purse && price) {
      const chars = texts.reduce((n, t) => n + t.length, 0);
      const worst = (Math.ceil(chars / CHARS_PER_TOKEN) * price.input) / 1_000_000;
      if (purse.spent + purse.reserved + worst > purse.limitUsd)
        throw new ProviderError('Embedding more would take this run past its spending cap (--max-cost).');
    }
    this.ledger.check();
    const reply = await this.slots(() => embedder.embed(texts, signal));
    const usage = { ...emptyUsage(), input: reply.inputTokens };
    // Priced as the ledger prices it (the row keeps the price it was given).
    const costUsd = price ? costOf(usage, price) : null;
    await this.ledger.record(
      {
        command: 'research',
        runId: this.ctx.runId,
        step: 'embed',
        provider: embedder.provider,
        model: embedder.model,
        usage,
      },
      record,
    );
    if (purse) purse.spent += costUsd ?? 0;
    this.usage.calls++;
    this.usage.inputTokens += reply.inputTokens;
    this.usage.costUsd =
      this.usage.costUsd === null || costUsd === null ? null : this.usage.costUsd + costUsd;
    this.ctx.emit({ type: 'spend', step: 'embed', model: embedder.model, usage, costUsd });
    const dims = reply.vectors[0]!.length;
    if (this.dims === undefined) {
      this.dims = dims;
      this.space = `${embedder.label}@${dims}`;
    } else if (dims !== this.dims)
      throw new ProviderError(
        `The embeddings server returned ${dims}-dimension vectors after ${this.dims}-dimension ones: another model answered.`,
      );
    return reply.vectors;
  }

  /** Said once; the run goes on by keywords. A cancellation is not a fault: it ends the run. */
  private fallBack(error: unknown): void {
    if (error instanceof AbortedError || this.ctx.signal?.aborted)
      throw error instanceof AbortedError ? error : new AbortedError();
    if (this.mode === 'bm25') return;
    const reason = typeof error === 'string' ? error : errorMessage(error);
    this.mode = 'bm25';
    this.fallbackReason = reason;
    this.ctx.emit({
      type: 'notice',
      message: `${reason.replace(/\s*$/, '')} Local documents are searched by keywords (BM25) only this run.`,
    });
  }
}

const keyOf = (h: { slug: string; ordinal: number }) => `${h.slug}#${h.ordinal}`;

/** A vector hit as a found passage: its similarity its score. */
const spanOf = ({ similarity, ...hit }: VectorHit): PassageSpanHit => ({ ...hit, score: similarity });

/** A fused passage as returned: the passage with its text, its ranks and its fused score. */
const ranked = (
  { item, bm25Rank, vectorRank, score }: Fused<PassageSpanHit>,
  text: string,
): RankedPassage => ({
  ...passageHit(item, text),
  bm25Rank,
  vectorRank,
  score,
});
