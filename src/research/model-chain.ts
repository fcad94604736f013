import { randomUUID } from 'node:crypto';
import { DEFAULT_MAX_AGE_MS } from '../cache/duration.js';
import { extractionCache } from '../cache/extractions.js';
import { pageCache } from '../cache/pages.js';
import { AbortedError, AgentError, errorMessage } from '../errors.js';
import { loadAfterNextRequest } from '../request-sent.js';
import { resolveSearch, SEARCH_SETUP_HINT } from '../tools/search/config.js';
import { CapReached, capNotice, capTooLow, runBudget } from './budget.js';
import { type DocumentInfo, listDocuments, searchDocuments } from './documents.js';
import { fallbackPlan, followUp, PLAN_LIST_LIMIT } from './follow-up.js';
import { type Emit, limiter, MAX_TOKENS, modelCaller, RunLedger, settleAll } from './model-call.js';
import { makePlan, PLAN_SYSTEM, type Plan, planPrompt } from './plan.js';
import { checkPlanDocuments, type PlanView, planView } from './plan-file.js';
import {
  EXTRACT_SYSTEM,
  extractPrompt,
  extractSource,
  NO_FACTS,
  PROMPT_VERSION,
  REPORT_SYSTEM,
  WRITE_SYSTEM,
  writePrompt,
} from './prompts.js';
import type { ReadAhead } from './read-ahead.js';
import { collectRound, type Source, type SourceReport } from './sources.js';
import {
  type ModelSetup,
  type ResearchOptions,
  type ResearchResult,
  type ResearchSettings,
  type RunUsage,
  webFilters,
} from './types.js';
import { preloadWebModules } from './web-modules.js';

export const DEFAULT_CONCURRENCY = 16;

type ChainResult = Pick<
  ResearchResult,
  'mode' | 'answer' | 'sources' | 'reports' | 'usage' | 'rounds' | 'truncated' | 'budget'
> & { ahead?: ReadAhead };

/** What every chain starts from: the run's model caller and ledger, and the documents it may read. */
async function chainStart(o: ResearchOptions, m: ModelSetup, emit: Emit, settings: ResearchSettings) {
  const runId = o.runId ?? randomUUID();
  const ledger = new RunLedger();
  // Under --max-cost every call is checked first, always keeping room for the write step.
  const step = settings.report ? 'report' : 'write';
  const writeSystem = settings.report ? REPORT_SYSTEM : WRITE_SYSTEM;
  const budget = runBudget(o, m, { system: writeSystem, maxTokens: MAX_TOKENS[step] });
  const call = modelCaller(o, m.provider, runId, ledger, emit, budget);
  // The search backend, its endpoint and key, read from the environment once for the whole run.
  const search = resolveSearch(o.env);
  const webAvailable = search !== undefined;
  const all = await listDocuments(o.store, o.contentDir);
  const known = new Set(all.map((d) => d.slug));
  return { ledger, call, search, webAvailable, all, known, budget };
}

type ChainStart = Awaited<ReturnType<typeof chainStart>>;

/**
 * The plan the run follows: the one given (--plan-file; its documents checked before anything is spent)
 * or the small model's, then the user's review of it (--review) when asked for.
 */
async function choosePlan(
  o: ResearchOptions,
  m: ModelSetup,
  settings: ResearchSettings,
  emit: Emit,
  { call, webAvailable, all, known, budget }: ChainStart,
): Promise<Plan> {
  // A resumed run follows the plan it recorded.
  const recorded = o.prior?.plan(1);
  if (recorded) return recorded;
  let plan: Plan;
  if (o.plan) {
    checkPlanDocuments(o.plan, known, o.contentDir);
    plan = o.plan;
  } else {
    // 1. Plan (small model). What web sources need loads meanwhile, off the critical path.
    if (webAvailable) preloadWebModules();
    emit({ type: 'step', name: 'plan' });
    const shown: DocumentInfo[] =
      all.length > PLAN_LIST_LIMIT
        ? await searchDocuments(o.store, o.contentDir, o.question, PLAN_LIST_LIMIT)
        : all;
    const prompt = planPrompt(o.question, shown, webAvailable, settings.breadth);
    const planned = await makePlan(
      async (messages) => (await call('plan', m.smallModel, PLAN_SYSTEM, messages)).text,
      prompt,
      known,
      { breadth: settings.breadth },
    ).catch((error) => {
      if (!(budget && error instanceof CapReached)) throw error;
      const inputChars = PLAN_SYSTEM.length + prompt.length;
      throw capTooLow(budget, { model: m.smallModel, inputChars, maxTokens: MAX_TOKENS.plan });
    });
    if (planned.dropped.length)
      emit({
        type: 'notice',
        message: `The plan named unknown documents, ignored: ${planned.dropped.join(', ')}`,
      });
    plan = planned.plan;
    if (!plan.documents.length && !plan.searches.length) plan = await fallbackPlan(o);
  }
  if (o.review) {
    const reviewed = await o.review(planView(plan, all), all);
    if (!reviewed) throw new AbortedError();
    plan = reviewed;
  }
  if (!webAvailable && plan.searches.length)
    emit({
      type: 'notice',
      message: `Web searches skipped: no search service is set up (${SEARCH_SETUP_HINT}).`,
    });
  return { documents: plan.documents, searches: plan.searches };
}

/** `--plan`: the plan (after any review) with its documents' titles, and what planning cost. */
export async function planChain(
  o: ResearchOptions,
  m: ModelSetup,
  settings: ResearchSettings,
  emit: Emit,
): Promise<{ plan: PlanView; usage: RunUsage }> {
  const start = await chainStart(o, m, emit, settings);
  const plan = await choosePlan(o, m, settings, emit, start);
  return { plan: planView(plan, start.all), usage: start.ledger.totals() };
}

/** Plan → (collect and extract, pipelined) → [follow-up → collect and extract]… → write. */
export async function modelChain(
  o: ResearchOptions,
  m: ModelSetup,
  settings: ResearchSettings,
  emit: Emit,
): Promise<ChainResult> {
  const start = await chainStart(o, m, emit, settings);
  const { ledger, call, search, webAvailable, all, known, budget } = start;
  // The checks' reading (with the grounding check) is needed at the write: loaded while the plan request
  // is out (the process is idle then), not at start-up or between the plan and the sources.
  const reading = loadAfterNextRequest(() => import('./read-ahead.js'));
  let plan = await choosePlan(o, m, settings, emit, start);
  await o.progress?.onPlan(1, plan);

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
  let rounds = 0;
  // Nothing paid for twice: pages read and facts extracted before are reused (src/cache/).
  const maxAgeMs = o.maxAgeMs ?? DEFAULT_MAX_AGE_MS;
  const pages = pageCache(o.store.cache, { maxAgeMs, refresh: o.refresh, env: o.env });
  const extracted = extractionCache(o.store.cache, {
    question: o.question,
    model: m.largeModel,
    promptVersion: PROMPT_VERSION,
    refresh: o.refresh,
  });

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
      queries: [o.question, ...what.searches],
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
      onSource: async (source, key) => {
        await o.progress?.onSource(key, source);
        // Extracted by an earlier attempt of a resumed run: not paid for again.
        const before = o.prior?.facts(key);
        if (before !== undefined) {
          facts.set(source, before);
          budget?.noted(before.length);
          return;
        }
        const block = extractSource(source);
        const cached = await extracted.get(block);
        if (cached !== undefined) {
          source.cached = true;
          facts.set(source, cached);
          budget?.noted(cached.length);
          await o.progress?.onFacts(key, cached);
          return;
        }
        const extraction = extractSlots(async () => {
          try {
            const { text, stopReason } = await call('extract', m.largeModel, EXTRACT_SYSTEM, [
              { role: 'user', content: extractPrompt(o.question, source) },
            ]);
            facts.set(source, text.trim() || NO_FACTS);
            await o.progress?.onFacts(key, facts.get(source)!);
            // Only a whole answer is kept: not an empty one, not one cut at the output limit.
            if (text.trim() && stopReason !== 'length') await extracted.put(block, text.trim());
          } catch (error) {
            if (error instanceof AbortedError) throw error;
            if (error instanceof CapReached) unread.add(source);
            else failed.set(source, errorMessage(error));
          }
        });
        // Handled later by settleAll; marked now so an early failure is not an unhandled rejection.
        extraction.catch(() => {});
        extractions.push(extraction);
      },
    }).catch(async (error) => {
      // Let extractions already under way settle (they are billed) before the failure is reported.
      await Promise.allSettled(extractions);
      throw error;
    });
    searched.push(...what.searches);
    sources.push(...collected);
    // 3. Extract: whatever has not finished by the time collection ends.
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

  for (let round = 1; ; round++) {
    rounds = round;
    const collected = await collectAndExtract(round, plan);
    if (round === 1 && collected.length === 0) {
      // Nothing the plan chose could be read (every search failed, say): the best local matches, if any.
      const fallback = await fallbackPlan(o);
      if (fallback.documents.length) {
        emit({
          type: 'notice',
          message: 'Nothing the plan chose could be read: reading the best-matching local documents.',
        });
        await collectAndExtract(round, fallback);
      }
    }

    if (round >= settings.depth || budget?.stopped) break;
    if (sources.length >= settings.maxSources) {
      emit({
        type: 'notice',
        message: `Stopped at --max-sources (${settings.maxSources} sources): no further rounds.`,
      });
      break;
    }
    // 4. Follow up (small model): what is missing, and what to read for it.
    emit({ type: 'step', name: 'followup', round: round + 1 });
    const next =
      o.prior?.plan(round + 1) ??
      (await followUp(o, m, settings, call, {
        sources,
        facts,
        seen,
        searched,
        all,
        known,
        webAvailable,
      }).catch((error) => {
        if (!(budget && error instanceof CapReached)) throw error;
        stopAtCap();
        return undefined;
      }));
    if (!next) break;
    await o.progress?.onPlan(round + 1, next);
    if (next.gaps.length) emit({ type: 'notice', message: `Gaps: ${next.gaps.join('; ')}` });
    const fresh: Plan = {
      documents: next.documents.filter((d) => !seen.has(`doc:${d}`)),
      searches: next.searches.filter((q) => !searched.some((s) => s.toLowerCase() === q.toLowerCase())),
    };
    if (!fresh.documents.length && !fresh.searches.length) {
      emit({ type: 'notice', message: 'Nothing new to read: the sources gathered cover the question.' });
      break;
    }
    plan = fresh;
  }

  if (sources.length === 0 && budget?.stopped)
    throw new AgentError(
      'The spending cap (--max-cost) left no room to read any source after planning: raise it to get an answer.',
    );
  if (sources.length === 0)
    throw new AgentError(
      'No source could be collected for this question, so there is nothing to answer from.',
    );
  if (failed.size === sources.length)
    throw new AgentError(`The extract step failed for every source: ${failed.values().next().value}`);

  // 5. Write (large model), streamed.
  const step = settings.report ? 'report' : 'write';
  const writeSystem = settings.report ? REPORT_SYSTEM : WRITE_SYSTEM;
  emit({ type: 'step', name: step });
  const notes = sources.map((source) => ({
    source,
    facts: failed.has(source)
      ? '(no facts: extraction failed; do not cite this source)'
      : (facts.get(source) ?? NO_FACTS),
  }));
  // The checks' reading of the sources overlaps the write, which only waits on the model.
  const ahead = (await reading()).readAhead(sources);
  const written = await call(
    'write',
    m.largeModel,
    writeSystem,
    [{ role: 'user', content: writePrompt(o.question, notes) }],
    (delta) => emit({ type: 'text', delta }),
    MAX_TOKENS[step],
  ).finally(ahead.stop);
  if (!written.text.trim()) throw new AgentError('The writing model returned an empty answer.');
  const truncated = written.stopReason === 'length';
  if (truncated)
    emit({
      type: 'notice',
      message: `The ${settings.report ? 'report' : 'answer'} was cut off at the output limit (${MAX_TOKENS[step].toLocaleString('en-US')} tokens): it is incomplete.`,
    });

  return {
    mode: 'model',
    answer: written.text.trim(),
    sources,
    reports,
    usage: ledger.totals(),
    rounds,
    truncated,
    ahead,
    ...(budget
      ? {
          budget: {
            limitUsd: budget.limitUsd,
            spentUsd: ledger.totals().costUsd,
            stopped: budget.stopped,
          },
        }
      : {}),
  };
}
