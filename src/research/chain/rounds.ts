import { DEFAULT_MAX_AGE_MS } from '../../cache/duration.js';
import { extractionCache } from '../../cache/extractions.js';
import { pageCache } from '../../cache/pages.js';
import { AbortedError, errorMessage } from '../../errors.js';
import { findPrice } from '../../providers/prices.js';
import { limiter, settleAll } from '../model-call.js';
import type { Plan } from '../planning/plan.js';
import { CapReached, capNotice } from '../run/budget.js';
import { DEFAULT_CONCURRENCY, type RunContext } from '../run-context.js';
import { collectRound, MAX_SOURCE_CHARS, type Source, type SourceReport } from '../sources.js';
import { webFilters } from '../types.js';
import { extractFacts } from './extract.js';
import { extractSource, PROMPT_VERSION } from './extract-prompt.js';

// The rounds of reading: each collects its sources and sends each to extraction the moment its text is in
// hand; what has been read, extracted, failed or left unread is kept here for the follow-up and the write.

export type Rounds = ReturnType<typeof readingRounds>;

/**
 * A source's budget on a model whose calls cost nothing (a local one): read whole, in as many extraction
 * requests as its length needs, up to about 80,000 words; beyond, the passages that match, as elsewhere.
 */
export const WHOLE_SOURCE_CHARS = 480_000;

export function readingRounds(ctx: RunContext) {
  const { options: o, models: m, settings, emit, call, search, budget } = ctx;
  const sources: Source[] = [];
  const reports: SourceReport[] = [];
  const facts = new Map<Source, string>();
  /** Sources whose extraction failed (a context-length 400 on one huge page, say): noted, not fatal. */
  const failed = new Map<Source, string>();
  /** Sources collected after the spending cap stopped extraction: dropped before the write. */
  const unread = new Set<Source>();
  const seen = new Set<string>();
  const searched: string[] = [];
  const extractSlots = o.extractSlots ?? limiter(o.concurrency ?? DEFAULT_CONCURRENCY);
  const price = findPrice(m.provider.name, m.largeModel, o.userPrices);
  const sourceChars =
    price && price.input === 0 && price.output === 0 ? WHOLE_SOURCE_CHARS : MAX_SOURCE_CHARS;
  // Nothing paid for twice: pages read and facts extracted before are reused (src/cache/).
  const maxAgeMs = o.maxAgeMs ?? DEFAULT_MAX_AGE_MS;
  const pages = pageCache(o.store.cache, { maxAgeMs, refresh: o.refresh, env: o.env });
  const extracted = extractionCache(o.store.cache, {
    question: o.question,
    model: m.largeModel,
    promptVersion: PROMPT_VERSION,
    refresh: o.refresh,
  });

  /** Extracts one source's facts: from an earlier attempt, the cache, or the large model (queued). */
  const extract = async (source: Source, key: string, extractions: Promise<void>[]) => {
    // Extracted by an earlier attempt of a resumed run: not paid for again.
    const before = o.prior?.facts(key);
    const block = extractSource(source);
    // The source recorded in the run's progress while the cache is asked (two statements, one wait).
    const [, cached] = await Promise.all([
      o.progress?.onSource(key, source),
      before === undefined ? extracted.get(block) : undefined,
    ]);
    if (before !== undefined) {
      facts.set(source, before);
      budget?.noted(before.length);
      return;
    }
    if (cached !== undefined) {
      source.cached = true;
      facts.set(source, cached);
      budget?.noted(cached.length);
      await o.progress?.onFacts(key, cached);
      return;
    }
    const extraction = extractSlots(async () => {
      try {
        const { facts: text, whole } = await extractFacts({
          call,
          provider: m.provider,
          model: m.largeModel,
          question: o.question,
          source,
          emit,
        });
        facts.set(source, text);
        // Recorded in the run's progress and kept in the cache at once (two statements, one wait). Only
        // a whole answer is cached: not one cut at the output limit or by the server, nor an unreadable one.
        await Promise.all([o.progress?.onFacts(key, text), whole ? extracted.put(block, text) : undefined]);
      } catch (error) {
        if (error instanceof AbortedError) throw error;
        if (error instanceof CapReached) unread.add(source);
        else failed.set(source, errorMessage(error));
      }
    });
    // Handled later by settleAll; marked now so an early failure is not an unhandled rejection.
    extraction.catch(() => {});
    extractions.push(extraction);
  };

  /** Collects one round's sources; each goes to extraction the moment its text is in hand. */
  const collectAndExtract = async (round: number, what: Plan): Promise<Source[]> => {
    emit({ type: 'step', name: 'sources', round });
    const extractions: Promise<void>[] = [];
    const collected = await collectRound(what, {
      store: o.store,
      root: o.contentDir,
      env: o.env,
      search,
      signal: o.signal,
      perSearch: settings.perSearch,
      sourceChars,
      queries: [o.question, ...what.searches],
      retriever: o.retriever,
      seen,
      base: sources.length,
      room: settings.maxSources - sources.length,
      filters: webFilters(settings),
      prior: o.prior,
      onSearch: o.progress?.onSearch,
      onReport: (report) => {
        reports.push(report);
        emit({ type: 'source', report });
      },
      pages,
      onSource: (source, key) => extract(source, key, extractions),
    }).catch(async (error) => {
      // Let extractions already under way settle (they are billed) before the failure is reported.
      await Promise.allSettled(extractions);
      throw error;
    });
    searched.push(...what.searches);
    sources.push(...collected);
    // Extract: whatever has not finished by the time collection ends.
    emit({ type: 'step', name: 'extract', round });
    await settleAll(extractions);
    for (const s of collected)
      if (failed.has(s))
        emit({ type: 'notice', message: `No facts from [${s.n}] ${s.title}: ${failed.get(s)}` });
    if (unread.size) stopAtCap();
    return collected;
  };

  /** The cap stopped collection: what was not extracted is dropped and the rest renumbered. */
  const stopAtCap = () => {
    const total = sources.length;
    const kept = sources.filter((s) => !unread.has(s));
    kept.forEach((s, i) => {
      s.n = i + 1;
    });
    sources.splice(0, sources.length, ...kept);
    emit({ type: 'notice', message: capNotice(budget!, kept.length, total) });
  };

  return { sources, reports, facts, failed, seen, searched, collectAndExtract, stopAtCap };
}
