import { randomUUID } from 'node:crypto';
import { AgentError, ConfigError, UsageError } from '../errors.js';
import { loadAfterNextRequest } from '../request-sent.js';
import { choosePlan } from './chain/plan.js';
import { readingRounds } from './chain/rounds.js';
import { writeAnswer, writerFor } from './chain/write.js';
import { checkCitations } from './checks/citations.js';
import { findEvidence } from './checks/evidence/index.js';
import { verifyClaims } from './checks/verify.js';
import { extractiveChain } from './extractive/chain.js';
import { fallbackPlan, followUp } from './planning/follow-up.js';
import type { Plan } from './planning/plan.js';
import { type PlanView, planView } from './planning/plan-file.js';
import { CapReached } from './run/budget.js';
import { embedStep, indexStep, retrieverFor } from './run/prepare.js';
import { Purse } from './run/purse.js';
import { InterruptedRun, type Recording, recordingFor } from './run/resume.js';
import { saveRun } from './run/save.js';
import { StepClock } from './run/timings.js';
import { addRunUsage } from './run/usage.js';
import { type ChainResult, type RunContext, startRun } from './run-context.js';
import {
  type ModelSetup,
  type ResearchEvent,
  type ResearchOptions,
  type ResearchResult,
  type ResearchSettings,
  type RunUsage,
  settingsOf,
} from './types.js';

// A research run from question to saved report, in order. Each step is one module, its prompt beside it:
//   index and embed   run/prepare.ts (the content folder's index; embeddings for hybrid retrieval)
//   1. plan           chain/plan.ts → planning/plan.ts (small model; --plan-file, --review)
//   2. collect and    chain/rounds.ts → sources.ts, and chain/extract.ts for each source as it arrives
//      extract        (large model; its prompt in chain/extract-prompt.ts)
//   3. follow up      planning/follow-up.ts (small model; rounds 2…--depth, each followed by 2 again)
//   4. write          chain/write.ts (large model, streamed; the run's writer: answer or --report)
//   5. check          checks/ (citations, grounding, evidence; --verify: checks/verify.ts)
//   6. save           run/save.ts
// Without a model the run answers extractively (extractive/chain.ts) and skips steps 1–4. Every model step
// takes the run's context (run-context.ts): options, models, settings, events, writer, ledger, budget.

export type { PlanView } from './planning/plan-file.js';
export { indexStep } from './run/prepare.js';
export { InterruptedRun } from './run/resume.js';
export type {
  ModelSetup,
  ResearchEvent,
  ResearchOptions,
  ResearchResult,
  ResearchSettings,
  ResearchStep,
  RunUsage,
  Verdict,
} from './types.js';
export { DEFAULT_SETTINGS, settingsOf } from './types.js';

export const VERIFY_NEEDS_MODEL =
  '--verify needs a model to judge the claims, and extractive mode uses none: drop --verify or --extractive, or set ANTHROPIC_API_KEY or OPENAI_API_KEY (or use --provider ollama).';

/** One research run, model or extractive: answered, checked, and (unless `save: false`) saved. */
export async function runResearch(o: ResearchOptions): Promise<ResearchResult> {
  if (o.verify && !o.models) throw new UsageError(VERIFY_NEEDS_MODEL);
  // Said before the first model call: a run that cannot record its calls or its report is not started.
  if (o.models && o.save !== false && o.store.readOnly)
    throw new ConfigError(
      `The database ${o.store.location} accepts only reads, so a research run could record neither its model calls nor its report: none was made. Use a writable database (AGENT_DATABASE_URL, --db).`,
    );
  const clock = new StepClock();
  const emit = (e: ResearchEvent) => {
    clock.observe(e);
    o.onEvent?.(e);
  };
  const settings = settingsOf(o);
  // A model run is recorded as it goes, so that it can be resumed if it ends without an answer.
  const recording = o.models && (await recordingFor(o, o.models, settings, emit));
  let saved = false;
  try {
    const result = await research(o, settings, emit, recording);
    result.timings = clock.finish();
    // 6. Save. An extractive run that matched nothing has no answer to keep.
    if (o.save !== false && (result.mode === 'model' || result.sources.length > 0))
      await saveRun(o.store, result, emit, recording?.id());
    saved = result.id !== undefined && recording?.id() !== undefined;
    return result;
  } catch (error) {
    const id = recording?.id();
    throw id === undefined ? error : new InterruptedRun(id, error);
  } finally {
    await recording?.end(saved);
  }
}

/** Index → [plan → collect and extract → follow up… → write] (or the extractive answer) → check. */
async function research(
  o: ResearchOptions,
  settings: ResearchSettings,
  emit: (e: ResearchEvent) => void,
  recording: Recording | undefined,
): Promise<ResearchResult> {
  // One id for every model call of the run (every attempt of a resumed one), so the ledger groups them.
  const runId = recording?.ledgerId ?? o.runId ?? randomUUID();
  const createdAt = recording?.createdAt ?? new Date().toISOString();
  // A batch brings the index up to date once, before its first question.
  if (!o.indexed) await indexStep(o, emit);
  // Embeddings count under the cap with the model calls: the run's purse is made here when it has none.
  const purse =
    o.purse ?? (o.maxCostUsd !== undefined && o.retrieval?.embedder ? new Purse(o.maxCostUsd) : undefined);
  const retriever = retrieverFor(o, runId, emit, purse);
  await embedStep(retriever, o.question, emit);

  if (!o.models) {
    const ignored = [settings.report && '--report', settings.depth > 1 && '--depth'].filter(Boolean);
    if (ignored.length)
      emit({
        type: 'notice',
        message: `Extractive mode has no model to write a report or follow up: ${ignored.join(' and ')} ignored.`,
      });
  }
  const { ahead, ...base } = o.models
    ? await modelRun(
        { ...o, runId, progress: recording?.hooks, prior: recording?.prior, retriever, purse },
        o.models,
        settings,
        emit,
      )
    : { ...(await extractiveChain(o, retriever, emit)), rounds: 1, truncated: false };

  // 5. Check: the citations, the figures and quotations (grounding), each claim's supporting passage.
  const result: ResearchResult = {
    question: o.question,
    ...base,
    // "Nothing matched" is not a claim that needs a source.
    citations: base.sources.length
      ? checkCitations(
          base.answer,
          base.sources.map((s) => s.n),
        )
      : { cited: [], dangling: [], uncited: [] },
    // Loaded when first needed (with the read-ahead during the write in a model run): not at start-up.
    grounding: (await import('./checks/grounding/index.js')).checkGrounding(
      base.answer,
      base.sources,
      ahead?.grounding,
    ),
    evidence: findEvidence(base.answer, base.sources, ahead?.evidence),
    settings,
    createdAt,
  };
  // Said in --json only where retrieval was asked for: without it, nothing changes.
  if (o.retrieval?.embedder || o.retrieval?.asked) result.retrieval = retriever.report();
  if (retriever.usage.calls > 0) result.usage = addRunUsage(result.usage, retriever.usage);
  // An extractive run spends nothing but its embeddings, whatever the cap.
  if (o.maxCostUsd !== undefined && !result.budget)
    result.budget = { limitUsd: o.maxCostUsd, spentUsd: retriever.usage.costUsd, stopped: false };
  if (o.verify && o.models) {
    emit({ type: 'step', name: 'verify' });
    const checked = await verifyClaims(o, runId, o.models.smallModel, result.evidence, emit);
    result.verification = checked.verification;
    result.verificationComplete = checked.complete;
    result.usage = addRunUsage(result.usage, checked.usage);
  }
  // A resumed run's figures are the whole run's: what its earlier attempts spent too.
  if (recording?.spent) result.usage = addRunUsage(recording.spent, result.usage);
  return result;
}

/** The model steps: plan → (collect and extract, pipelined) → [follow up → collect and extract]… → write. */
async function modelRun(
  o: ResearchOptions,
  models: ModelSetup,
  settings: ResearchSettings,
  emit: (e: ResearchEvent) => void,
): Promise<ChainResult> {
  // What the run ends with, a short answer or a --report, is decided once, here.
  const ctx = await startRun(o, models, settings, writerFor(settings), emit);
  try {
    return await modelSteps(ctx);
  } finally {
    // Calls made while the database server was away are recorded now, if it is back.
    const left = await ctx.ledger.flush(o.store, o.userPrices);
    if (left > 0)
      emit({
        type: 'notice',
        message: `${left} model call(s) made while the database server was away could not be recorded in the ledger.`,
      });
  }
}

async function modelSteps(ctx: RunContext): Promise<ChainResult> {
  const { options: o, settings, emit, ledger, budget } = ctx;
  // The checks' reading of the sources (with the grounding check) runs during the write: its code is
  // loaded while the plan request is out (the process is idle then), not at start-up.
  const reading = loadAfterNextRequest(() => import('./checks/read-ahead.js'));

  // 1. Plan (small model): the documents to read and the web searches to make.
  let plan: Plan = await choosePlan(ctx);
  await o.progress?.onPlan(1, plan);

  const rounds = readingRounds(ctx);
  const { sources, seen, searched } = rounds;
  let round = 1;
  for (; ; round++) {
    // 2. Collect and extract: each source goes to extraction (large model) the moment its text is in hand.
    const collected = await rounds.collectAndExtract(round, plan);
    if (round === 1 && collected.length === 0) {
      // Nothing the plan chose could be read (every search failed, say): the best local matches, if any.
      const fallback = await fallbackPlan(o);
      if (fallback.documents.length) {
        emit({
          type: 'notice',
          message: 'Nothing the plan chose could be read: reading the best-matching local documents.',
        });
        await rounds.collectAndExtract(round, fallback);
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
    // 3. Follow up (small model): what is missing, and what to read for it.
    emit({ type: 'step', name: 'followup', round: round + 1 });
    const next =
      o.prior?.plan(round + 1) ??
      (await followUp(ctx, rounds).catch((error) => {
        if (!(budget && error instanceof CapReached)) throw error;
        rounds.stopAtCap();
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
  checkCollected(rounds, budget?.stopped ?? false);

  // 4. Write (large model, streamed), while the read-ahead reads the sources for step 5's checks.
  emit({ type: 'step', name: ctx.writer.step });
  const ahead = (await reading()).readAhead(sources);
  const { answer, truncated } = await writeAnswer(ctx, rounds).finally(ahead.stop);
  return {
    mode: 'model',
    answer,
    sources,
    reports: rounds.reports,
    usage: ledger.totals(),
    rounds: round,
    truncated,
    ahead,
    ...(budget
      ? { budget: { limitUsd: budget.limitUsd, spentUsd: ledger.totals().costUsd, stopped: budget.stopped } }
      : {}),
  };
}

/** Nothing to write from: no source read, or none whose facts could be extracted. */
function checkCollected(
  { sources, failed }: Pick<ReturnType<typeof readingRounds>, 'sources' | 'failed'>,
  capStopped: boolean,
): void {
  if (sources.length === 0 && capStopped)
    throw new AgentError(
      'The spending cap (--max-cost) left no room to read any source after planning: raise it to get an answer.',
    );
  if (sources.length === 0)
    throw new AgentError(
      'No source could be collected for this question, so there is nothing to answer from.',
    );
  if (failed.size === sources.length)
    throw new AgentError(`The extract step failed for every source: ${failed.values().next().value}`);
}

/** `agent research --plan`: step 1 alone (the small model's plan, or o.plan checked; reviewed if asked). */
export async function planResearch(
  o: ResearchOptions & { models: ModelSetup },
): Promise<{ plan: PlanView; usage: RunUsage }> {
  const emit = (e: ResearchEvent) => o.onEvent?.(e);
  await indexStep(o, emit);
  // The planner is shown the documents the run itself would be (by hybrid retrieval where it is set up).
  const retriever = retrieverFor(o, o.runId ?? randomUUID(), emit);
  await embedStep(retriever, o.question, emit);
  const settings = settingsOf(o);
  const ctx = await startRun({ ...o, retriever }, o.models, settings, writerFor(settings), emit);
  const planned = { plan: planView(await choosePlan(ctx), ctx.documents), usage: ctx.ledger.totals() };
  return retriever.usage.calls > 0
    ? { ...planned, usage: addRunUsage(planned.usage, retriever.usage) }
    : planned;
}
