import { randomUUID } from 'node:crypto';
import { AbortedError, AgentError, errorMessage } from '../errors.js';
import type { Price } from '../providers/prices.js';
import { type CostRow, recordCall } from '../store/ledger.js';
import type { Db } from '../store/open.js';
import { addUsage, emptyUsage, type Message, type Provider, type Usage } from '../types.js';
import { type CitationCheck, checkCitations } from './citations.js';
import { type DocumentInfo, listDocuments, refreshIndex, searchDocuments } from './documents.js';
import { extractiveAnswer } from './extractive.js';
import { makePlan, PLAN_SYSTEM, type Plan, planPrompt } from './plan.js';
import { EXTRACT_SYSTEM, extractPrompt, NO_FACTS, WRITE_SYSTEM, writePrompt } from './prompts.js';
import { collectSources, type Source, type SourceReport } from './sources.js';

export type ResearchStep = 'index' | 'plan' | 'sources' | 'extract' | 'write' | 'search' | 'select';

export type ResearchEvent =
  | { type: 'step'; name: ResearchStep }
  | { type: 'text'; delta: string }
  | { type: 'spend'; step: string; model: string; usage: Usage; costUsd: number | null }
  | { type: 'source'; report: SourceReport }
  | { type: 'notice'; message: string };

/** The run's own totals, in the ledger report's terms; costUsd is null when any call had no known price. */
export type RunUsage = Omit<CostRow, 'key' | 'unpricedCalls'>;

export interface ResearchResult {
  question: string;
  mode: 'model' | 'extractive';
  answer: string;
  sources: Source[];
  reports: SourceReport[];
  citations: CitationCheck;
  usage: RunUsage;
}

export interface ModelSetup {
  provider: Provider;
  smallModel: string;
  largeModel: string;
}

export interface ResearchOptions {
  question: string;
  db: Db;
  contentDir: string;
  env: NodeJS.ProcessEnv;
  /** Absent: answer extractively from local documents, with no model. */
  models?: ModelSetup;
  runId?: string;
  userPrices?: Record<string, Price>;
  signal?: AbortSignal;
  concurrency?: number;
  onEvent?: (event: ResearchEvent) => void;
}

/**
 * Output caps per step. Generous on purpose: reasoning and thinking tokens count against them, and only
 * the tokens actually used are billed.
 */
const MAX_TOKENS: Record<string, number> = { plan: 4096, extract: 8192, write: 16_384 };

/** Above this many documents the planner sees only the best full-text matches, not the whole list. */
const PLAN_LIST_LIMIT = 60;

export async function runResearch(o: ResearchOptions): Promise<ResearchResult> {
  const emit = (e: ResearchEvent) => o.onEvent?.(e);
  emit({ type: 'step', name: 'index' });
  refreshIndex(o.db, o.contentDir);
  return o.models ? modelChain(o, o.models, emit) : extractiveChain(o, emit);
}

function extractiveChain(o: ResearchOptions, emit: (e: ResearchEvent) => void): ResearchResult {
  emit({ type: 'step', name: 'search' });
  const { answer, sources } = extractiveAnswer(o.db, o.contentDir, o.question);
  emit({ type: 'step', name: 'select' });
  const text = answer || 'No passage in the local documents matches this question.';
  return {
    question: o.question,
    mode: 'extractive',
    answer: text,
    sources,
    reports: sources.map((s) => ({ label: s.slug ?? s.location, status: 'read', n: s.n })),
    // "Nothing matched" is not a claim that needs a source.
    citations: answer
      ? checkCitations(
          text,
          sources.map((s) => s.n),
        )
      : { cited: [], dangling: [], uncited: [] },
    usage: {
      calls: 0,
      inputTokens: 0,
      outputTokens: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      reasoningTokens: 0,
      costUsd: 0,
    },
  };
}

async function modelChain(
  o: ResearchOptions,
  m: ModelSetup,
  emit: (e: ResearchEvent) => void,
): Promise<ResearchResult> {
  const runId = o.runId ?? randomUUID();
  let total = emptyUsage();
  let calls = 0;
  let cost: number | null = 0;

  /** One model call: recorded in the ledger and reported, whatever step it serves. */
  const call = async (
    step: string,
    model: string,
    system: string,
    messages: Message[],
    onText?: (d: string) => void,
  ) => {
    let reply: Awaited<ReturnType<Provider['complete']>>;
    try {
      reply = await m.provider.complete({
        model,
        system,
        messages,
        maxTokens: MAX_TOKENS[step] ?? 8192,
        signal: o.signal,
        onEvent: onText ? (e) => e.type === 'text' && onText(e.delta) : undefined,
      });
    } catch (error) {
      if (error instanceof AbortedError) throw error;
      throw new AgentError(`The ${step} step failed: ${errorMessage(error)}`, { cause: error });
    }
    const costUsd = recordCall(
      o.db,
      { command: 'research', runId, step, provider: reply.provider, model: reply.model, usage: reply.usage },
      o.userPrices,
    );
    calls++;
    total = addUsage(total, reply.usage);
    cost = cost === null || costUsd === null ? null : cost + costUsd;
    emit({ type: 'spend', step, model: reply.model, usage: reply.usage, costUsd });
    const text = reply.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('');
    return { text, stopReason: reply.stopReason };
  };

  // 1. Plan (small model).
  emit({ type: 'step', name: 'plan' });
  const all = listDocuments(o.db, o.contentDir);
  const shown: DocumentInfo[] =
    all.length > PLAN_LIST_LIMIT ? searchDocuments(o.db, o.contentDir, o.question, PLAN_LIST_LIMIT) : all;
  const webAvailable = Boolean(o.env.BRAVE_SEARCH_KEY);
  const { plan, dropped } = await makePlan(
    async (messages) => (await call('plan', m.smallModel, PLAN_SYSTEM, messages)).text,
    planPrompt(o.question, shown, webAvailable),
    new Set(all.map((d) => d.slug)),
  );
  if (dropped.length)
    emit({ type: 'notice', message: `The plan named unknown documents, ignored: ${dropped.join(', ')}` });
  if (!webAvailable && plan.searches.length)
    emit({ type: 'notice', message: 'Web searches skipped: no BRAVE_SEARCH_KEY is set.' });
  const effective: Plan = plan.documents.length || plan.searches.length ? plan : fallbackPlan(o);

  // 2. Sources.
  emit({ type: 'step', name: 'sources' });
  const { sources, reports } = await collectSources(effective, {
    db: o.db,
    root: o.contentDir,
    env: o.env,
    signal: o.signal,
    onReport: (report) => emit({ type: 'source', report }),
  });
  if (sources.length === 0)
    throw new AgentError(
      'No source could be collected for this question, so there is nothing to answer from.',
    );

  // 3. Extract (large model), one call per source, in parallel up to the cap.
  emit({ type: 'step', name: 'extract' });
  const facts = await mapLimit(sources, o.concurrency ?? 4, async (source) => {
    const { text } = await call('extract', m.largeModel, EXTRACT_SYSTEM, [
      { role: 'user', content: extractPrompt(o.question, source) },
    ]);
    return { source, facts: text.trim() || NO_FACTS };
  });

  // 4. Write (large model), streamed.
  emit({ type: 'step', name: 'write' });
  const written = await call(
    'write',
    m.largeModel,
    WRITE_SYSTEM,
    [{ role: 'user', content: writePrompt(o.question, facts) }],
    (delta) => emit({ type: 'text', delta }),
  );
  if (!written.text.trim()) throw new AgentError('The writing model returned an empty answer.');
  if (written.stopReason === 'length')
    emit({ type: 'notice', message: 'The answer was cut off at the output token limit.' });

  return {
    question: o.question,
    mode: 'model',
    answer: written.text.trim(),
    sources,
    reports,
    citations: checkCitations(
      written.text,
      sources.map((s) => s.n),
    ),
    usage: {
      calls,
      inputTokens: total.input,
      outputTokens: total.output,
      cacheReadTokens: total.cacheRead,
      cacheWriteTokens: total.cacheWrite,
      reasoningTokens: total.reasoning,
      costUsd: cost,
    },
  };
}

/** A plan that chose nothing still gets the best full-text matches, rather than an answer from nothing. */
function fallbackPlan(o: ResearchOptions): Plan {
  return { documents: searchDocuments(o.db, o.contentDir, o.question, 2).map((h) => h.slug), searches: [] };
}

/** Runs `fn` over items with at most `limit` in flight; results keep the items' order; the first failure wins. */
export async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
