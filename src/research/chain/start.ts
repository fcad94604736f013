import { randomUUID } from 'node:crypto';
import { resolveSearch } from '../../web/search/config.js';
import type { ReadAhead } from '../checks/read-ahead.js';
import { listDocuments } from '../documents/index.js';
import { type Emit, MAX_TOKENS, modelCaller, RunLedger } from '../model-call.js';
import { REPORT_SYSTEM, WRITE_SYSTEM } from '../planning/prompts.js';
import { runBudget } from '../run/budget.js';
import type { ModelSetup, ResearchOptions, ResearchResult, ResearchSettings } from '../types.js';

// What every model chain starts from, for a whole run (--plan and the full chain alike).

export const DEFAULT_CONCURRENCY = 16;

export type ChainResult = Pick<
  ResearchResult,
  'mode' | 'answer' | 'sources' | 'reports' | 'usage' | 'rounds' | 'truncated' | 'budget'
> & { ahead?: ReadAhead };

/** The run's model caller and ledger, the spending cap, the search service and the documents it may read. */
export async function chainStart(o: ResearchOptions, m: ModelSetup, emit: Emit, settings: ResearchSettings) {
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

export type ChainStart = Awaited<ReturnType<typeof chainStart>>;
