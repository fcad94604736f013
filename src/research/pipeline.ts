import { AbortedError, errorMessage } from '../errors.js';
import type { Price } from '../providers/prices.js';
import type { CostRow } from '../store/ledger.js';
import type { Db } from '../store/open.js';
import { saveRun } from '../store/research-runs.js';
import type { Provider, Usage } from '../types.js';
import { type CitationCheck, checkCitations } from './citations.js';
import { getDocument, refreshIndex } from './documents.js';
import { extractiveAnswer } from './extractive.js';
import { checkGrounding, type Grounding } from './grounding.js';
import { modelChain } from './model-chain.js';
import { resultJson } from './result-json.js';
import type { Source, SourceReport } from './sources.js';

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
  /** Keep the finished run in the database (default true). */
  save?: boolean;
  onEvent?: (event: ResearchEvent) => void;
}

export async function runResearch(o: ResearchOptions): Promise<ResearchResult> {
  const emit = (e: ResearchEvent) => o.onEvent?.(e);
  const settings: ResearchSettings = {
    depth: o.depth ?? DEFAULT_SETTINGS.depth,
    breadth: o.breadth ?? DEFAULT_SETTINGS.breadth,
    perSearch: o.perSearch ?? DEFAULT_SETTINGS.perSearch,
    maxSources: o.maxSources ?? DEFAULT_SETTINGS.maxSources,
    report: o.report ?? DEFAULT_SETTINGS.report,
  };
  const createdAt = new Date().toISOString();
  emit({ type: 'step', name: 'index' });
  const stats = await refreshIndex(o.db, o.contentDir, {
    signal: o.signal,
    onNotice: (message) => emit({ type: 'notice', message }),
  });
  const { skipped } = stats;
  for (const s of skipped) emit({ type: 'notice', message: `Skipped ${s.path}: ${s.reason}` });
  if (stats.added + stats.updated + stats.unchanged === 0)
    emit({
      type: 'notice',
      message: `The content folder ${o.contentDir} holds no ${skipped.length ? 'readable ' : ''}documents (.md, .markdown, .txt, .html, .htm, .docx, .pdf).`,
    });
  if (o.signal?.aborted) throw new AbortedError();

  if (!o.models) {
    const ignored = [settings.report && '--report', settings.depth > 1 && '--depth'].filter(Boolean);
    if (ignored.length)
      emit({
        type: 'notice',
        message: `Extractive mode has no model to write a report or follow up: ${ignored.join(' and ')} ignored.`,
      });
  }
  const base = o.models
    ? await modelChain(o, o.models, settings, emit)
    : { ...extractiveChain(o, emit), rounds: 1, truncated: false };
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
    grounding: checkGrounding(base.answer, base.sources),
    settings,
    createdAt,
  };
  // An extractive run that matched nothing has no answer to keep.
  if (o.save !== false && (result.mode === 'model' || result.sources.length > 0)) save(o.db, result, emit);
  return result;
}

/** Only a run that answered is kept; a failure to keep it is a notice, since the answer is already shown. */
function save(db: Db, result: ResearchResult, emit: (e: ResearchEvent) => void): void {
  try {
    result.id = saveRun(db, {
      question: result.question,
      mode: result.mode,
      answer: result.answer,
      costUsd: result.usage.costUsd,
      result: resultJson(result),
      createdAt: Date.parse(result.createdAt),
    });
  } catch (error) {
    emit({ type: 'notice', message: `This run could not be saved: ${errorMessage(error)}` });
  }
}

function extractiveChain(
  o: ResearchOptions,
  emit: (e: ResearchEvent) => void,
): Pick<ResearchResult, 'mode' | 'answer' | 'sources' | 'reports' | 'usage'> {
  emit({ type: 'step', name: 'search' });
  const { answer, sources } = extractiveAnswer(o.db, o.contentDir, o.question);
  emit({ type: 'step', name: 'select' });
  // The quoted sentences come from the whole documents: that is the text the grounding check holds them to.
  for (const s of sources)
    if (!s.text && s.slug) s.text = getDocument(o.db, o.contentDir, s.slug)?.body ?? '';
  return {
    mode: 'extractive',
    answer: answer || 'No passage in the local documents matches this question.',
    sources,
    reports: sources.map((s) => ({ label: s.slug ?? s.location, status: 'read', n: s.n })),
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
