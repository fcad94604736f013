import type { Price } from '../providers/prices.js';
import type { CostRow } from '../store/ledger.js';
import type { Db } from '../store/open.js';
import type { Provider, Usage } from '../types.js';
import type { CitationCheck } from './citations.js';
import type { Grounding } from './grounding.js';
import type { Source, SourceReport } from './sources.js';

// The research chain's shared types, in a file of their own so that the stages (model-chain, sources,
// result-json) and the pipeline that runs them do not import each other.

export type ResearchStep =
  | 'index'
  | 'plan'
  | 'sources'
  | 'extract'
  | 'followup'
  | 'write'
  | 'report'
  | 'search'
  | 'select';

export type ResearchEvent =
  | { type: 'step'; name: ResearchStep; round?: number }
  | { type: 'text'; delta: string }
  | { type: 'spend'; step: string; model: string; usage: Usage; costUsd: number | null }
  | { type: 'source'; report: SourceReport }
  | { type: 'notice'; message: string };

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
}

export const DEFAULT_SETTINGS: ResearchSettings = {
  depth: 1,
  breadth: 3,
  perSearch: 2,
  maxSources: 20,
  report: false,
};

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
  usage: RunUsage;
  settings: ResearchSettings;
  rounds: number;
  /** The answer or report was cut off at the output limit: it is incomplete. */
  truncated: boolean;
  /** Only under a spending cap: the cap, the run's spend, and whether the cap stopped collection. */
  budget?: { limitUsd: number; spentUsd: number | null; stopped: boolean };
  createdAt: string;
}

export interface ModelSetup {
  provider: Provider;
  smallModel: string;
  largeModel: string;
}

export interface ResearchOptions extends Partial<ResearchSettings> {
  question: string;
  db: Db;
  contentDir: string;
  env: NodeJS.ProcessEnv;
  /** Absent: answer extractively from local documents, with no model. */
  models?: ModelSetup;
  runId?: string;
  userPrices?: Record<string, Price>;
  signal?: AbortSignal;
  /** Extraction calls in flight at once. */
  concurrency?: number;
  /** A spending cap in US dollars (`--max-cost`): collection stops before a call could break it. */
  maxCostUsd?: number;
  /** Keep the finished run in the database (default true). */
  save?: boolean;
  onEvent?: (event: ResearchEvent) => void;
}
