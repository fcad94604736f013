import { randomUUID } from 'node:crypto';
import { resolveSearch, type SearchConfig } from '../web/search/config.js';
import type { ReadAhead } from './checks/read-ahead.js';
import { type DocumentInfo, listDocuments } from './documents/index.js';
import { type Caller, type Emit, modelCaller, RunLedger } from './model-call.js';
import { type Budget, runBudget } from './run/budget.js';
import type { Source } from './sources.js';
import type { ModelSetup, ResearchOptions, ResearchResult, ResearchSettings } from './types.js';

// What every step of a model run takes besides its own inputs, made once for the whole run (--plan and
// the full run alike): each step is a function of `(ctx, …its inputs)`.

export const DEFAULT_CONCURRENCY = 16;

/** What the model steps of a run give the checks: the answer, its sources, and the read-ahead's work. */
export type ChainResult = Pick<
  ResearchResult,
  'mode' | 'answer' | 'sources' | 'reports' | 'usage' | 'rounds' | 'truncated' | 'budget'
> & { ahead?: ReadAhead };

/**
 * The run's last model step: a structured report (--report) or a short answer, decided once per run
 * (chain/write.ts's writerFor, where the prompts are).
 */
export interface Writer {
  /** The step's name in the ledger, the events and the timings. */
  step: 'report' | 'write';
  system: string;
  prompt: (question: string, notes: { source: Source; facts: string }[]) => string;
  maxTokens: number;
}

export interface RunContext {
  /** The run's options as given: the question, the store, the content folder, the caches' settings, hooks. */
  options: ResearchOptions;
  models: ModelSetup;
  settings: ResearchSettings;
  emit: Emit;
  writer: Writer;
  /** Every model call of the run, priced and recorded in the ledger. */
  ledger: RunLedger;
  /** Makes a model call: checked against the budget, recorded in the ledger. */
  call: Caller;
  /** The spending cap (--max-cost or a batch's purse); absent without one. */
  budget: Budget | undefined;
  /** The search backend, its endpoint and key, read from the environment once for the whole run. */
  search: SearchConfig | undefined;
  webAvailable: boolean;
  /** The content folder's documents, and their slugs. */
  documents: DocumentInfo[];
  known: Set<string>;
}

/** The run's model caller and ledger, the spending cap, the search service and the documents it may read. */
export async function startRun(
  o: ResearchOptions,
  models: ModelSetup,
  settings: ResearchSettings,
  writer: Writer,
  emit: Emit,
): Promise<RunContext> {
  const runId = o.runId ?? randomUUID();
  const ledger = new RunLedger();
  // Under --max-cost every call is checked first, always keeping room for the write step.
  const budget = runBudget(o, models, writer);
  const call = modelCaller(o, models.provider, runId, ledger, emit, budget);
  const search = resolveSearch(o.env);
  const documents = await listDocuments(o.store, o.contentDir);
  const known = new Set(documents.map((d) => d.slug));
  return {
    options: o,
    models,
    settings,
    emit,
    writer,
    ledger,
    call,
    budget,
    search,
    webAvailable: search !== undefined,
    documents,
    known,
  };
}
