import { randomUUID } from 'node:crypto';
import { AbortedError, AgentError, errorMessage } from '../errors.js';
import { recordCall } from '../store/ledger.js';
import { SEARCH_SETUP_HINT, searchBackendName } from '../tools/search/config.js';
import {
  type AssistantMessage,
  addUsage,
  emptyUsage,
  type Message,
  type Provider,
  type Usage,
} from '../types.js';
import { type DocumentInfo, listDocuments, searchDocuments } from './documents.js';
import type {
  ModelSetup,
  ResearchEvent,
  ResearchOptions,
  ResearchResult,
  ResearchSettings,
} from './pipeline.js';
import {
  type FollowUp,
  followUpPrompt,
  makePlan,
  PLAN_SYSTEM,
  type Plan,
  planPrompt,
  UnusablePlanError,
} from './plan.js';
import {
  EXTRACT_SYSTEM,
  extractPrompt,
  NO_FACTS,
  REPORT_SYSTEM,
  WRITE_SYSTEM,
  writePrompt,
} from './prompts.js';
import { collectRound, type Source, type SourceReport } from './sources.js';

/**
 * Output caps per step. Generous on purpose: reasoning and thinking tokens count against them, and only
 * the tokens actually used are billed. Reports get more room than short answers.
 */
const MAX_TOKENS = { plan: 4096, followup: 4096, extract: 8192, write: 16_384, report: 32_000 };

/** Above this many documents the planner sees only the best full-text matches, not the whole list. */
const PLAN_LIST_LIMIT = 60;

export const DEFAULT_CONCURRENCY = 16;

type Emit = (e: ResearchEvent) => void;
type ChainResult = Pick<
  ResearchResult,
  'mode' | 'answer' | 'sources' | 'reports' | 'usage' | 'rounds' | 'truncated'
>;

/** Plan → (collect and extract, pipelined) → [follow-up → collect and extract]… → write. */
export async function modelChain(
  o: ResearchOptions,
  m: ModelSetup,
  settings: ResearchSettings,
  emit: Emit,
): Promise<ChainResult> {
  const runId = o.runId ?? randomUUID();
  const ledger = new RunLedger();
  const call = modelCaller(o, m.provider, runId, ledger, emit);
  const webAvailable = searchBackendName(o.env) !== undefined;
  const all = listDocuments(o.db, o.contentDir);
  const known = new Set(all.map((d) => d.slug));

  // 1. Plan (small model).
  emit({ type: 'step', name: 'plan' });
  const shown: DocumentInfo[] =
    all.length > PLAN_LIST_LIMIT ? searchDocuments(o.db, o.contentDir, o.question, PLAN_LIST_LIMIT) : all;
  const planned = await makePlan(
    async (messages) => (await call('plan', m.smallModel, PLAN_SYSTEM, messages)).text,
    planPrompt(o.question, shown, webAvailable, settings.breadth),
    known,
    { breadth: settings.breadth },
  );
  if (planned.dropped.length)
    emit({
      type: 'notice',
      message: `The plan named unknown documents, ignored: ${planned.dropped.join(', ')}`,
    });
  if (!webAvailable && planned.plan.searches.length)
    emit({
      type: 'notice',
      message: `Web searches skipped: no search service is set up (${SEARCH_SETUP_HINT}).`,
    });
  let plan: Plan = planned.plan;
  if (!plan.documents.length && !plan.searches.length) plan = fallbackPlan(o);

  const sources: Source[] = [];
  const reports: SourceReport[] = [];
  const facts = new Map<Source, string>();
  /** Sources whose extraction failed (a context-length 400 on one huge page, say): noted, not fatal. */
  const failed = new Map<Source, string>();
  const seen = new Set<string>();
  const searched: string[] = [];
  const extractSlots = limiter(o.concurrency ?? DEFAULT_CONCURRENCY);
  let rounds = 0;

  /** Collects one round's sources; each goes to extraction the moment its text is in hand. */
  const collectAndExtract = async (round: number, what: Plan): Promise<Source[]> => {
    emit({ type: 'step', name: 'sources', round });
    const extractions: Promise<void>[] = [];
    const collected = await collectRound(what, {
      db: o.db,
      root: o.contentDir,
      env: o.env,
      signal: o.signal,
      perSearch: settings.perSearch,
      queries: [o.question, ...what.searches],
      seen,
      base: sources.length,
      room: settings.maxSources - sources.length,
      onReport: (report) => {
        reports.push(report);
        emit({ type: 'source', report });
      },
      onSource: (source) => {
        const extraction = extractSlots(async () => {
          try {
            const { text } = await call('extract', m.largeModel, EXTRACT_SYSTEM, [
              { role: 'user', content: extractPrompt(o.question, source) },
            ]);
            facts.set(source, text.trim() || NO_FACTS);
          } catch (error) {
            if (error instanceof AbortedError) throw error;
            failed.set(source, errorMessage(error));
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
    return collected;
  };

  for (let round = 1; ; round++) {
    rounds = round;
    const collected = await collectAndExtract(round, plan);
    if (round === 1 && collected.length === 0) {
      // Nothing the plan chose could be read (every search failed, say): the best local matches, if any.
      const fallback = fallbackPlan(o);
      if (fallback.documents.length) {
        emit({
          type: 'notice',
          message: 'Nothing the plan chose could be read: reading the best-matching local documents.',
        });
        await collectAndExtract(round, fallback);
      }
    }

    if (round >= settings.depth) break;
    if (sources.length >= settings.maxSources) {
      emit({
        type: 'notice',
        message: `Stopped at --max-sources (${settings.maxSources} sources): no further rounds.`,
      });
      break;
    }
    // 4. Follow up (small model): what is missing, and what to read for it.
    emit({ type: 'step', name: 'followup', round: round + 1 });
    const next = await followUp(o, m, settings, call, {
      sources,
      facts,
      seen,
      searched,
      all,
      known,
      webAvailable,
    });
    if (!next) break;
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

  if (sources.length === 0)
    throw new AgentError(
      'No source could be collected for this question, so there is nothing to answer from.',
    );
  if (failed.size === sources.length)
    throw new AgentError(`The extract step failed for every source: ${failed.values().next().value}`);

  // 5. Write (large model), streamed.
  emit({ type: 'step', name: settings.report ? 'report' : 'write' });
  const notes = sources.map((source) => ({
    source,
    facts: failed.has(source)
      ? '(no facts: extraction failed; do not cite this source)'
      : (facts.get(source) ?? NO_FACTS),
  }));
  const step = settings.report ? 'report' : 'write';
  const written = await call(
    'write',
    m.largeModel,
    settings.report ? REPORT_SYSTEM : WRITE_SYSTEM,
    [{ role: 'user', content: writePrompt(o.question, notes) }],
    (delta) => emit({ type: 'text', delta }),
    MAX_TOKENS[step],
  );
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
  };
}

type Caller = ReturnType<typeof modelCaller>;

/** One model call: recorded in the ledger and reported, whatever step it serves. */
function modelCaller(o: ResearchOptions, provider: Provider, runId: string, ledger: RunLedger, emit: Emit) {
  const record = (step: string, reply: AssistantMessage, cancelled = false) => {
    const costUsd = recordCall(
      o.db,
      {
        command: 'research',
        runId,
        step,
        provider: reply.provider,
        model: reply.model,
        usage: reply.usage,
        cancelled,
      },
      o.userPrices,
    );
    ledger.add(reply, costUsd);
    emit({ type: 'spend', step, model: reply.model, usage: reply.usage, costUsd });
  };
  return async (
    step: 'plan' | 'followup' | 'extract' | 'write',
    model: string,
    system: string,
    messages: Message[],
    onText?: (d: string) => void,
    maxTokens: number = MAX_TOKENS[step],
  ) => {
    if (o.signal?.aborted) throw new AbortedError();
    let reply: AssistantMessage;
    try {
      reply = await provider.complete({
        model,
        system,
        messages,
        maxTokens,
        signal: o.signal,
        onEvent: onText ? (e) => e.type === 'text' && onText(e.delta) : undefined,
      });
    } catch (error) {
      if (error instanceof AbortedError) {
        // A cancelled call is billed all the same: record what is known of it.
        if (error.partial) record(step, error.partial, true);
        throw error;
      }
      if (o.signal?.aborted) throw new AbortedError();
      throw new AgentError(`The ${step} step failed: ${errorMessage(error)}`, { cause: error });
    }
    record(step, reply);
    const text = reply.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('');
    return { text, stopReason: reply.stopReason };
  };
}

/** The run's token and dollar totals; dollars become unknown (null) once any call has no price. */
class RunLedger {
  private usage = emptyUsage();
  private calls = 0;
  private cost: number | null = 0;

  add(reply: { usage: Usage }, costUsd: number | null): void {
    this.calls++;
    this.usage = addUsage(this.usage, reply.usage);
    this.cost = this.cost === null || costUsd === null ? null : this.cost + costUsd;
  }

  totals(): ResearchResult['usage'] {
    return {
      calls: this.calls,
      inputTokens: this.usage.input,
      outputTokens: this.usage.output,
      cacheReadTokens: this.usage.cacheRead,
      cacheWriteTokens: this.usage.cacheWrite,
      reasoningTokens: this.usage.reasoning,
      costUsd: this.cost,
    };
  }
}

/**
 * The follow-up question to the small model. A reply that is not usable JSON twice ends deepening with a
 * notice (the run still writes from what it has); undefined then.
 */
async function followUp(
  o: ResearchOptions,
  m: ModelSetup,
  settings: ResearchSettings,
  call: Caller,
  st: {
    sources: Source[];
    facts: Map<Source, string>;
    seen: Set<string>;
    searched: string[];
    all: DocumentInfo[];
    known: Set<string>;
    webAvailable: boolean;
  },
): Promise<FollowUp | undefined> {
  const unread = st.all.filter((d) => !st.seen.has(`doc:${d.slug}`));
  const shown =
    unread.length > PLAN_LIST_LIMIT
      ? searchDocuments(o.db, o.contentDir, o.question, PLAN_LIST_LIMIT * 2)
          .filter((d) => !st.seen.has(`doc:${d.slug}`))
          .slice(0, PLAN_LIST_LIMIT)
      : unread;
  const prompt = followUpPrompt({
    question: o.question,
    facts: st.sources.map((s) => `[${s.n}] ${s.title}\n${st.facts.get(s) ?? NO_FACTS}`).join('\n\n'),
    read: st.sources.map((s) => s.slug ?? s.location),
    searched: st.searched,
    documents: shown,
    webAvailable: st.webAvailable,
    breadth: settings.breadth,
  });
  try {
    const { plan, dropped } = await makePlan(
      async (messages) => (await call('followup', m.smallModel, PLAN_SYSTEM, messages)).text,
      prompt,
      st.known,
      {
        breadth: settings.breadth,
        what: 'follow-up',
        shape: '{"gaps": [...], "documents": [...], "searches": [...]}',
      },
    );
    if (dropped.length)
      o.onEvent?.({
        type: 'notice',
        message: `The follow-up named unknown documents, ignored: ${dropped.join(', ')}`,
      });
    return st.webAvailable ? plan : { ...plan, searches: [] };
  } catch (error) {
    if (!(error instanceof UnusablePlanError)) throw error;
    o.onEvent?.({
      type: 'notice',
      message:
        'The follow-up reply was not usable JSON twice: no further rounds; writing from what was gathered.',
    });
    return undefined;
  }
}

/** A plan that chose nothing still gets the best full-text matches, rather than an answer from nothing. */
function fallbackPlan(o: ResearchOptions): Plan {
  return { documents: searchDocuments(o.db, o.contentDir, o.question, 2).map((h) => h.slug), searches: [] };
}

/** Runs tasks with at most `limit` in flight, in the order they were queued. */
export function limiter(limit: number): <T>(task: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async (task) => {
    if (active >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    active++;
    try {
      return await task();
    } finally {
      active--;
      waiting.shift()?.();
    }
  };
}

/** Waits for every task, then throws the first failure (so no call is still running when the run ends). */
async function settleAll(tasks: Promise<void>[]): Promise<void> {
  const settled = await Promise.allSettled(tasks);
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) throw failed.reason;
}
