import { randomUUID } from 'node:crypto';
import { AgentError, errorMessage, UsageError } from '../../errors.js';
import { newHolder, RUN_STALE_MS } from '../../store/holder.js';
import type { RunProgress, Store } from '../../store/store.js';
import type { SearchResult } from '../../web/search/result.js';
import type { Source } from '../sources.js';
import type {
  ModelSetup,
  PriorWork,
  ProgressHooks,
  ResearchEvent,
  ResearchOptions,
  ResearchSettings,
  RunUsage,
} from '../types.js';

// Resumable research runs. A model run is kept, unfinished, from the moment its plan is made, and records
// each search, each source read and each extraction as it is done (the store's ProgressStore). A run that
// ends without an answer (Ctrl-C, a crash, kill -9, a failed API) can then be continued: the recorded
// plans, searches, sources and facts are taken as they were, and only the rest is done and paid for.

/** What continuing a run needs, recorded with its plan. */
export interface RecordedOptions {
  question: string;
  settings: ResearchSettings;
  provider: string;
  smallModel: string;
  largeModel: string;
  /** The content folder, as resolved. */
  contentDir: string;
  verify: boolean;
}

/** How often the running process says it is still at work. */
const HEARTBEAT_MS = RUN_STALE_MS / 6;

const HOW_TO_LIST = '`agent reports` lists the runs with their numbers.';

/** A run's recorded options, for `--resume`: a usage error when there is no unfinished run by that number. */
export async function recordedRun(store: Store, id: number): Promise<RecordedOptions> {
  const progress = await store.progress.load(id);
  if (progress) return progress.options as unknown as RecordedOptions;
  const exists = await store.runs.get(id);
  throw notResumable(id, exists ? 'done' : 'missing');
}

const notResumable = (id: number, why: 'done' | 'missing') =>
  new UsageError(
    why === 'done'
      ? `Research run #${id} is finished, so there is nothing to resume: agent reports --show ${id} shows it.`
      : `There is no research run #${id}. ${HOW_TO_LIST}`,
  );

/** A run whose progress is being recorded: the chain's hooks, and what an earlier attempt left. */
export interface Recording {
  hooks: ProgressHooks;
  /** For a resumed run: what its earlier attempts did. */
  prior?: PriorWork;
  /** For a resumed run: what its earlier attempts cost. */
  spent?: RunUsage;
  ledgerId: string;
  createdAt: string;
  /** The run's number, once it is kept (when its plan is made). */
  id(): number | undefined;
  /**
   * Stops the heartbeat; a run that did not answer is let go, so that it can be resumed at once (one
   * whose report was `saved` has no progress left to let go of).
   */
  end(saved?: boolean): Promise<void>;
}

/** Records a new run's progress, keeping it from the moment its plan is made. */
export function startRecording(
  o: ResearchOptions,
  m: ModelSetup,
  settings: ResearchSettings,
  ledgerId: string,
  createdAt: string,
  emit: (e: ResearchEvent) => void,
): Recording {
  const options: RecordedOptions = {
    question: o.question,
    settings,
    provider: m.provider.name,
    smallModel: m.smallModel,
    largeModel: m.largeModel,
    contentDir: o.contentDir,
    verify: Boolean(o.verify),
  };
  const holder = newHolder();
  return recording(o.store, holder, emit, { ledgerId, createdAt }, undefined, (plan) =>
    o.store.progress.start({
      question: o.question,
      createdAt: Date.parse(createdAt),
      ledgerId,
      options,
      holder,
      plan,
    }),
  );
}

/**
 * Takes an unfinished run over to continue it: refused when it is finished or gone (exit 2), or while
 * another live process is continuing it (exit 1).
 */
export async function resumeRecording(
  store: Store,
  id: number,
  emit: (e: ResearchEvent) => void,
): Promise<Recording> {
  const holder = newHolder();
  const claim = await store.progress.claim(id, holder);
  if (claim.outcome === 'missing' || claim.outcome === 'done') throw notResumable(id, claim.outcome);
  if (claim.outcome === 'busy') {
    const [host, pid] = claim.holder.split(':');
    throw new AgentError(
      `Research run #${id} is being continued by another process (pid ${pid} on ${host}): wait for it to end.`,
    );
  }
  const { progress } = claim;
  const read = progress.sources.size;
  const extracted = [...progress.sources.values()].filter((s) => s.facts !== null).length;
  emit({
    type: 'notice',
    message: `Resuming run #${id}: ${read} source(s) read and ${extracted} extraction(s) made before are reused.`,
  });
  const started = (await store.runs.get(id))?.createdAt ?? new Date().toISOString();
  const rec = recording(store, holder, emit, { ledgerId: progress.ledgerId, createdAt: started }, id);
  rec.prior = priorWork(progress);
  rec.spent = spentBy(await store.ledger.runTotals(progress.ledgerId));
  return rec;
}

/**
 * The recording hooks, for the run numbered `kept`, or else one that `keep` makes with its first plan
 * (returning its number). Each write is its own short transaction. A failed write is one notice, and
 * recording stops: what was recorded before it can still be resumed.
 */
function recording(
  store: Store,
  holder: string,
  emit: (e: ResearchEvent) => void,
  run: { ledgerId: string; createdAt: string },
  kept: number | undefined,
  keep: (plan: object) => Promise<number> = async () => kept!,
): Recording {
  let id = kept;
  let broken = false;
  let timer: NodeJS.Timeout | undefined;
  // While the run is at work, its row says so: `--resume` in another process waits for it to end.
  const beat = () => {
    timer = setInterval(() => {
      // A missed heartbeat matters only after several: the next one may well succeed.
      store.progress.renew(id!, holder).catch(() => {});
    }, HEARTBEAT_MS);
    timer.unref();
  };
  if (id !== undefined) beat();
  const attempt = async (work: () => Promise<unknown>) => {
    if (broken) return;
    try {
      await work();
    } catch (error) {
      broken = true;
      emit({
        type: 'notice',
        message: `This run's progress could not be recorded (${errorMessage(error)}): ${id === undefined ? 'it cannot be resumed' : 'only what was recorded before can be resumed'} if it is interrupted.`,
      });
    }
  };
  const withId = (work: (id: number) => Promise<unknown>) =>
    attempt(async () => id !== undefined && (await work(id)));
  const hooks: ProgressHooks = {
    onPlan: (round, plan) =>
      attempt(async () => {
        if (id !== undefined) await store.progress.recordPlan(id, round, plan);
        else {
          id = await keep(plan);
          beat();
        }
      }),
    onSearch: (query, results) => withId((n) => store.progress.recordSearch(n, query, results)),
    onSource: (key, source) =>
      withId((n) => {
        const { text, n: _number, ...described } = source;
        return store.progress.recordSource(n, key, described, text);
      }),
    onFacts: (key, facts) => withId((n) => store.progress.recordFacts(n, key, facts)),
  };
  return {
    hooks,
    ...run,
    id: () => id,
    /** `saved`: the run's report was saved, which dropped its progress (and hold) with it. */
    async end(saved = false) {
      clearInterval(timer);
      if (id === undefined || saved) return;
      // Failing, another process takes it over once the heartbeat is stale.
      await store.progress.release(id, holder).catch(() => {});
    },
  };
}

/** A resumed run's record, as the chain asks for it. */
function priorWork(progress: RunProgress): PriorWork {
  const strings = (v: unknown): string[] =>
    Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  return {
    plan(round) {
      const p = progress.plans.get(round);
      return p && { documents: strings(p.documents), searches: strings(p.searches), gaps: strings(p.gaps) };
    },
    search: (query) => progress.searches.get(query) as SearchResult[] | undefined,
    source(key) {
      const s = progress.sources.get(key);
      return s && { ...(s.source as Omit<Source, 'n' | 'text'>), text: s.text };
    },
    facts: (key) => progress.sources.get(key)?.facts ?? undefined,
  };
}

/** What a run's calls have cost so far, from the ledger; dollars unknown (null) once a call had no price. */
function spentBy(t: Awaited<ReturnType<Store['ledger']['runTotals']>>): RunUsage {
  return {
    calls: t.calls,
    inputTokens: t.inputTokens,
    outputTokens: t.outputTokens,
    cacheReadTokens: t.cacheReadTokens,
    cacheWriteTokens: t.cacheWriteTokens,
    reasoningTokens: t.reasoningTokens,
    costUsd: t.unpricedCalls > 0 ? null : (t.costUsd ?? 0),
  };
}

/** The run's recording: the one resumed (--resume), a new one (resumable runs), or none. */
export async function recordingFor(
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
