import { randomUUID } from 'node:crypto';
import { AbortedError, AgentError, ConfigError, errorMessage, UsageError } from '../errors.js';
import type { Store } from '../store/store.js';
import { modelChain, planChain } from './chain/index.js';
import { DEFAULT_CONCURRENCY } from './chain/start.js';
import { checkCitations } from './checks/citations.js';
import { findEvidence } from './checks/evidence/index.js';
import { verifyClaims } from './checks/verify.js';
import { getDocument, refreshIndex } from './documents/index.js';
import type { PlanView } from './planning/plan-file.js';
import { resultJson } from './result-json.js';
import { Retriever } from './retrieval/retriever.js';
import { Purse } from './run/purse.js';
import { type Recording, resumeRecording, startRecording } from './run/resume.js';
import { StepClock } from './run/timings.js';
import { addRunUsage, noRunUsage } from './run/usage.js';
import {
  DEFAULT_SETTINGS,
  type ModelSetup,
  type ResearchEvent,
  type ResearchOptions,
  type ResearchResult,
  type ResearchSettings,
  type RunUsage,
} from './types.js';

export type { PlanView } from './planning/plan-file.js';
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
export { DEFAULT_SETTINGS } from './types.js';

export const VERIFY_NEEDS_MODEL =
  '--verify needs a model to judge the claims, and extractive mode uses none: drop --verify or --extractive, or set ANTHROPIC_API_KEY or OPENAI_API_KEY (or use --provider ollama).';

/** The run's settings: each option as given, else its default. */
export function settingsOf(o: Partial<ResearchSettings>): ResearchSettings {
  return {
    depth: o.depth ?? DEFAULT_SETTINGS.depth,
    breadth: o.breadth ?? DEFAULT_SETTINGS.breadth,
    perSearch: o.perSearch ?? DEFAULT_SETTINGS.perSearch,
    maxSources: o.maxSources ?? DEFAULT_SETTINGS.maxSources,
    report: o.report ?? DEFAULT_SETTINGS.report,
    // The web filters are kept with the run only when set, so a run without them reads as before.
    ...(o.sites?.length ? { sites: o.sites } : {}),
    ...(o.excludeSites?.length ? { excludeSites: o.excludeSites } : {}),
    ...(o.recent ? { recent: o.recent } : {}),
  };
}

/** Brings the document index up to date, saying what could not be read. */
export async function indexStep(
  o: Pick<ResearchOptions, 'store' | 'contentDir' | 'signal'>,
  emit: (e: ResearchEvent) => void,
): Promise<void> {
  emit({ type: 'step', name: 'index' });
  const stats = await refreshIndex(o.store, o.contentDir, {
    signal: o.signal,
    onNotice: (message) => emit({ type: 'notice', message }),
  });
  const { skipped } = stats;
  for (const s of skipped) emit({ type: 'notice', message: `Skipped ${s.path}: ${s.reason}` });
  if (stats.added + stats.updated + stats.unchanged === 0 && o.store.readOnly)
    emit({
      type: 'notice',
      message: `The read-only database holds no index of ${o.contentDir}, and cannot make one: its documents are not searched.`,
    });
  else if (stats.added + stats.updated + stats.unchanged === 0)
    emit({
      type: 'notice',
      message: `The content folder ${o.contentDir} holds no ${skipped.length ? 'readable ' : ''}documents (.md, .markdown, .txt, .html, .htm, .docx, .pdf).`,
    });
  if (o.signal?.aborted) throw new AbortedError();
}

/**
 * Embeds the question and the passages that have no vector of the model yet (hybrid and semantic
 * retrieval); a terminal shows the count as it goes. A fault falls back to BM25 (the retriever says so).
 */
async function embedStep(retriever: Retriever, question: string, emit: (e: ResearchEvent) => void) {
  if (!retriever.usesVectors) return;
  let shown = false;
  await retriever.prepare(question, (done, total) => {
    if (!shown) emit({ type: 'step', name: 'embed' });
    shown = true;
    emit({ type: 'progress', done, total });
  });
}

/** `agent research --plan`: the plan (the small model's, or o.plan checked; reviewed if asked) and its cost. */
export async function planResearch(
  o: ResearchOptions & { models: ModelSetup },
): Promise<{ plan: PlanView; usage: RunUsage }> {
  const emit = (e: ResearchEvent) => o.onEvent?.(e);
  await indexStep(o, emit);
  // The planner is shown the documents the run itself would be (by hybrid retrieval where it is set up).
  const retriever = retrieverFor(o, o.runId ?? randomUUID(), emit);
  await embedStep(retriever, o.question, emit);
  const planned = await planChain({ ...o, retriever }, o.models, settingsOf(o), emit);
  return retriever.usage.calls > 0
    ? { ...planned, usage: addRunUsage(planned.usage, retriever.usage) }
    : planned;
}

function retrieverFor(o: ResearchOptions, runId: string, emit: (e: ResearchEvent) => void, purse?: Purse) {
  return new Retriever(o.retrieval ?? { mode: 'bm25' }, {
    store: o.store,
    root: o.contentDir,
    runId,
    userPrices: o.userPrices,
    signal: o.signal,
    emit,
    purse,
    concurrency: o.concurrency ?? DEFAULT_CONCURRENCY,
  });
}

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
    // An extractive run that matched nothing has no answer to keep.
    if (o.save !== false && (result.mode === 'model' || result.sources.length > 0))
      await save(o.store, result, emit, recording?.id());
    saved = result.id !== undefined && recording?.id() !== undefined;
    return result;
  } catch (error) {
    const id = recording?.id();
    throw id === undefined ? error : new InterruptedRun(id, error);
  } finally {
    await recording?.end(saved);
  }
}

/**
 * A run that ended without an answer after it was kept (its plan made): resumable with
 * `agent research --resume <run>`. Its message and exit code are the failure's.
 */
export class InterruptedRun extends AgentError {
  override readonly exitCode: number;
  constructor(
    readonly run: number,
    cause: unknown,
  ) {
    super(cause instanceof AgentError ? cause.message : `unexpected error: ${errorMessage(cause)}`, {
      cause,
    });
    this.exitCode = cause instanceof AgentError ? cause.exitCode : 1;
  }
}

async function recordingFor(
  o: ResearchOptions,
  models: ModelSetup,
  settings: ResearchSettings,
  emit: (e: ResearchEvent) => void,
): Promise<Recording | undefined> {
  if (o.resume !== undefined) return resumeRecording(o.store, o.resume, emit);
  if (!o.resumable || o.save === false) return undefined;
  // One id for every model call of the run, the verification's included, so the ledger groups them.
  return startRecording(o, models, settings, o.runId ?? randomUUID(), new Date().toISOString(), emit);
}

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
    ? await modelChain(
        { ...o, runId, progress: recording?.hooks, prior: recording?.prior, retriever, purse },
        o.models,
        settings,
        emit,
      )
    : { ...(await extractiveChain(o, retriever, emit)), rounds: 1, truncated: false };
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

/**
 * Keeps a run that answered (completing its unfinished row, when it has one); a failure to keep it is a
 * notice, since the answer is already shown.
 */
async function save(
  store: Store,
  result: ResearchResult,
  emit: (e: ResearchEvent) => void,
  id?: number,
): Promise<void> {
  try {
    result.id = await store.runs.save({
      id,
      question: result.question,
      mode: result.mode,
      answer: result.answer,
      costUsd: result.usage.costUsd,
      result: resultJson(result),
      createdAt: Date.parse(result.createdAt),
      // The texts the evidence was found in, so it can be shown again after a page changes.
      texts: result.sources.map((s) => ({ n: s.n, text: s.text })),
    });
  } catch (error) {
    emit({ type: 'notice', message: `This run could not be saved: ${errorMessage(error)}` });
  }
}

async function extractiveChain(
  o: ResearchOptions,
  retriever: Retriever,
  emit: (e: ResearchEvent) => void,
): Promise<Pick<ResearchResult, 'mode' | 'answer' | 'sources' | 'reports' | 'usage'>> {
  emit({ type: 'step', name: 'search' });
  const { extractiveAnswer } = await import('./extractive/index.js');
  const { answer, sources } = await extractiveAnswer(o.store, o.contentDir, o.question, {
    search: (query, limit) => retriever.passages(query, limit),
    rankPrior: retriever.usesVectors,
  });
  emit({ type: 'step', name: 'select' });
  // The quoted sentences come from the whole documents: that is the text the grounding check holds them to.
  for (const s of sources)
    if (!s.text && s.slug) s.text = (await getDocument(o.store, o.contentDir, s.slug))?.body ?? '';
  return {
    mode: 'extractive',
    answer: answer || 'No passage in the local documents matches this question.',
    sources,
    reports: sources.map((s) => ({ label: s.slug ?? s.location, status: 'read', n: s.n })),
    usage: noRunUsage(),
  };
}
