import type { Price } from '../providers/prices.js';
import type { CostRow, Store } from '../store/store.js';
import type { Provider, Usage } from '../types.js';
import type { WebFilters } from '../web/search/filters.js';
import type { SearchResult } from '../web/search/result.js';
import type { CitationCheck } from './checks/citations.js';
import type { Evidence } from './checks/evidence/index.js';
import type { Grounding } from './checks/grounding/index.js';
import type { DocumentInfo } from './documents/index.js';
import type { PassageRanker } from './documents/source.js';
import type { FollowUp, Plan } from './planning/plan.js';
import type { PlanView } from './planning/plan-file.js';
import type { RetrievalReport, RetrievalSetup } from './retrieval/settings.js';
import type { Purse } from './run/purse.js';
import type { PriorReads, Source, SourceReport } from './sources.js';

// The research chain's shared types, in a file of their own so that the stages (chain/, sources,
// result-json) and the pipeline that runs them do not import each other.

export type ResearchStep =
  | 'index'
  | 'embed'
  | 'plan'
  | 'review'
  | 'sources'
  | 'extract'
  | 'followup'
  | 'write'
  | 'report'
  | 'search'
  | 'select'
  | 'verify';

export type ResearchEvent =
  | { type: 'step'; name: ResearchStep; round?: number }
  | { type: 'text'; delta: string }
  | { type: 'spend'; step: string; model: string; usage: Usage; costUsd: number | null }
  | { type: 'source'; report: SourceReport }
  | { type: 'notice'; message: string }
  /** Passages embedded so far of those the index step found without a vector (a terminal shows it). */
  | { type: 'progress'; done: number; total: number };

/** The run's own totals, in the ledger report's terms; costUsd is null when any call had no known price. */
export type RunUsage = Pick<
  CostRow,
  | 'calls'
  | 'inputTokens'
  | 'outputTokens'
  | 'cacheReadTokens'
  | 'cacheWriteTokens'
  | 'reasoningTokens'
  | 'costUsd'
>;

export interface ResearchSettings {
  /** Rounds of reading: 1 is plan → read → write; more add follow-up rounds on the gaps. */
  depth: number;
  /** Documents and searches per plan or follow-up. */
  breadth: number;
  /** Results read per web search. */
  perSearch: number;
  /** No more sources than this in a run. */
  maxSources: number;
  /** A structured report instead of a short answer. */
  report: boolean;
  /** --site / AGENT_SITES: web searches only on these domains (and their subdomains); absent when none. */
  sites?: string[];
  /** --exclude-site / AGENT_EXCLUDE_SITES: never these domains; absent when none. */
  excludeSites?: string[];
  /** --recent: only pages published within this period (`7d`, `6m`, `1y`); absent when not set. */
  recent?: string;
}

/** The run's web filters, in the form the search layer takes. */
export const webFilters = (s: ResearchSettings): WebFilters => ({
  sites: s.sites ?? [],
  excludeSites: s.excludeSites ?? [],
  recent: s.recent,
});

export const DEFAULT_SETTINGS: ResearchSettings = {
  depth: 1,
  breadth: 3,
  perSearch: 2,
  maxSources: 20,
  report: false,
};

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

export interface ResearchResult {
  /** The saved run's id, once saved. */
  id?: number;
  question: string;
  mode: 'model' | 'extractive';
  answer: string;
  sources: Source[];
  reports: SourceReport[];
  citations: CitationCheck;
  grounding: Grounding;
  /** For each cited claim and each source it cites, the passage that best supports it. */
  evidence: Evidence[];
  /** With --verify: the small model's verdict on each cited claim. */
  verification?: Verdict[];
  /** With --verify: false when some claims have no verdict (an unusable reply twice, or a failed call). */
  verificationComplete?: boolean;
  usage: RunUsage;
  settings: ResearchSettings;
  rounds: number;
  /** The answer or report was cut off at the output limit: it is incomplete. */
  truncated: boolean;
  /** Seconds per step; absent in runs saved before they were measured. */
  timings?: Timings;
  /** Only under a spending cap: the cap, the run's spend, and whether the cap stopped collection. */
  budget?: { limitUsd: number; spentUsd: number | null; stopped: boolean };
  /** How the local documents were searched, and the passages given to the model (or quoted). */
  retrieval?: RetrievalReport;
  createdAt: string;
}

export interface Verdict {
  sentence: string;
  verdict: 'supported' | 'partial' | 'unsupported';
  /** One line: why. */
  reason: string;
}

export interface ModelSetup {
  provider: Provider;
  smallModel: string;
  largeModel: string;
}

export interface ResearchOptions extends Partial<ResearchSettings> {
  question: string;
  store: Store;
  contentDir: string;
  env: NodeJS.ProcessEnv;
  /** Absent: answer extractively from local documents, with no model. */
  models?: ModelSetup;
  /** How local documents are searched (`--retrieval`, `--embeddings`); absent: BM25. */
  retrieval?: RetrievalSetup;
  /** Set by the pipeline: the run's retrieval, which reads the documents' passages. */
  retriever?: PassageRanker;
  runId?: string;
  userPrices?: Record<string, Price>;
  signal?: AbortSignal;
  /** Extraction calls in flight at once. */
  concurrency?: number;
  /**
   * Runs an extraction when a slot is free: a batch passes one to all its runs, so that `--concurrency`
   * bounds the batch rather than each run. Absent: the run has `concurrency` slots of its own.
   */
  extractSlots?: <T>(task: () => Promise<T>) => Promise<T>;
  /** The queued batch this run answers a question of: its ledger rows carry it. */
  batchId?: string;
  /**
   * Runs a model call when its provider has a free slot: the queue's workers share the slots through the
   * database (AGENT_PROVIDER_CONCURRENCY), so that many machines do not trip a rate limit together.
   */
  callSlots?: <T>(provider: string, call: () => Promise<T>) => Promise<T>;
  /** A batch's spending cap, shared by its runs (each joins under `runId`); overrides `maxCostUsd`. */
  purse?: Purse;
  /** After writing, the small model checks each cited claim against its evidence. */
  verify?: boolean;
  /** A spending cap in US dollars (`--max-cost`): collection stops before a call could break it. */
  maxCostUsd?: number;
  /** How long a cached page is used without asking its server again (`--max-age`; default a day). */
  maxAgeMs?: number;
  /** `--refresh`: look nothing up in the page and extraction caches this run (what it gets is stored). */
  refresh?: boolean;
  /** The content folder's index is already up to date (a batch indexes once for all its questions). */
  indexed?: boolean;
  /** Keep the finished run in the database (default true). */
  save?: boolean;
  onEvent?: (event: ResearchEvent) => void;
  /** Run this plan instead of asking the small model for one (--plan-file). */
  plan?: Plan;
  /**
   * Shown the plan before anything but the plan call is spent (--review): returns the plan to run, or
   * undefined to cancel the run.
   */
  review?: (plan: PlanView, documents: DocumentInfo[]) => Promise<Plan | undefined>;
  /** Record the run's progress as it goes, so that an interrupted run can be resumed (see resume.ts). */
  resumable?: boolean;
  /** Continue the unfinished run with this number (`--resume`): its options must be the recorded ones. */
  resume?: number;
  /** Set by the pipeline: what the chain records as it goes. */
  progress?: ProgressHooks;
  /** Set by the pipeline: what an interrupted attempt of the run already did. */
  prior?: PriorWork;
}

/** A round's plan as recorded: round 1 as chosen (after any review), later rounds as followed up. */
export type RoundPlan = Plan & { gaps?: string[] };

/**
 * What a run records as it goes (see resume.ts); each hook is called the moment the step is done and
 * awaited, so the step's rows are committed before the run goes on. A hook never rejects: a failed
 * write is said once, as a notice, and recording stops.
 */
export interface ProgressHooks {
  onPlan(round: number, plan: RoundPlan): Promise<void>;
  /** A web search's results, inside the web filters. */
  onSearch(query: string, results: SearchResult[]): Promise<void>;
  /** A source whose text is in hand; `key` is `doc:<slug>`, or the search result's normalised URL. */
  onSource(key: string, source: Source): Promise<void>;
  onFacts(key: string, facts: string): Promise<void>;
}

/** What an interrupted attempt already did: the chain takes it instead of doing (and paying) it again. */
export interface PriorWork extends PriorReads {
  plan(round: number): FollowUp | undefined;
  facts(key: string): string | undefined;
}

/**
 * Seconds a run spent in each step, as `--json` prints them (`"timings"`) and the summary line shows
 * them. Collection and extraction overlap (each source is extracted as it arrives), so they count as one
 * step, "sources"; rounds of the same step add up. `total` is the whole run, from indexing to the end.
 */
export type Timings = Partial<Record<TimedStep, number>> & { total: number };

export type TimedStep = 'index' | 'plan' | 'review' | 'sources' | 'followup' | 'write' | 'search' | 'verify';
