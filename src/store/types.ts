import type { Message, Usage } from '../types.js';

// The rows the store reads and writes, shared by both implementations (store/sqlite/, store/postgres/).
// `user` is who created a row (AGENT_USER, else the operating-system user name); '' for a row kept
// before agent recorded people.

export interface LedgerEntry {
  command: 'chat' | 'research';
  runId: string;
  step: string;
  provider: string;
  model: string;
  usage: Usage;
  /** Cancelled mid-stream: billed all the same, with the tokens known at the cancel (partly estimated). */
  cancelled?: boolean;
  ts?: number;
  /** The queued batch the call served (`agent research --batch --queue`; PostgreSQL only). */
  batchId?: string;
}

/**
 * `user` groups by the person who made the call (AGENT_USER, else the operating-system user); `batch` by
 * the queued batch (PostgreSQL only).
 */
export type GroupBy = 'model' | 'day' | 'command' | 'user' | 'batch';

export interface CostRow {
  key: string;
  calls: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  reasoningTokens: number;
  /** Sum of the priced calls; null when none of the calls has a known price. */
  costUsd: number | null;
  /** Calls whose model had no known price: their cost is not in `costUsd`. */
  unpricedCalls: number;
  /** Calls cancelled mid-stream, counted in every figure above with the tokens known at the cancel. */
  cancelledCalls: number;
}

export interface CostReport {
  totals: Omit<CostRow, 'key'>;
  rows: CostRow[];
}

export interface Note {
  id: number;
  title: string | null;
  content: string;
  tags: string[];
  createdAt: string;
  user: string;
}

export interface SessionSummary {
  id: number;
  /** The usage_ledger run its model calls are billed under. */
  runId: string;
  createdAt: string;
  updatedAt: string;
  /** Provider and model of the latest exchange. */
  provider: string;
  model: string;
  exchanges: number;
  /** Model calls billed under the session, and how many of them had no known price. */
  calls: number;
  unpricedCalls: number;
  /** Dollars of the priced calls; null when no call has a known price. */
  pricedUsd: number | null;
  firstMessage: string;
  /** Whose chat it is. */
  user: string;
}

/** A saved message with the exchange it belongs to and the provider and model the chat used for it. */
export interface StoredMessage {
  exchange: number;
  provider: string;
  model: string;
  message: Message;
}

export interface Exchange {
  provider: string;
  model: string;
  /** The exchange's messages in order, starting with the user's. */
  messages: readonly Message[];
  ts?: number;
}

export interface RunSummary {
  id: number;
  /** ISO 8601. */
  createdAt: string;
  question: string;
  mode: string;
  /** Null when a model call had no known price. */
  costUsd: number | null;
  /** `unfinished`: ended before its answer (`agent research --resume <id>` continues it). */
  status: 'done' | 'unfinished';
  user: string;
}

export interface SavedRun extends RunSummary {
  /** The answer or report, as shown. */
  answer: string;
  /** The object `agent research --json` printed for the run. */
  result: Record<string, unknown>;
}

export interface RunText {
  /** The source's number in the run. */
  n: number;
  text: string;
}

export interface NewRun {
  question: string;
  mode: string;
  answer: string;
  costUsd: number | null;
  result: object;
  /** Unix epoch milliseconds; now when absent. */
  createdAt?: number;
  /** The source texts the run used, kept with it. */
  texts?: RunText[];
  /** The number of the unfinished run this completes (its progress is dropped). */
  id?: number;
}

export interface StartedRun {
  question: string;
  /** Unix epoch milliseconds. */
  createdAt: number;
  ledgerId: string;
  /** What continuing the run needs (see research/resume.ts), kept as JSON. */
  options: object;
  holder: string;
  plan: object;
}

export interface RunProgress {
  id: number;
  question: string;
  status: 'done' | 'unfinished';
  ledgerId: string;
  options: Record<string, unknown>;
  holder: string | null;
  heartbeat: number;
  /** Plans by round. */
  plans: Map<number, Record<string, unknown>>;
  /** A search's results by query. */
  searches: Map<string, unknown[]>;
  /** Sources by key, in the order they were read. */
  sources: Map<string, { source: Record<string, unknown>; text: string; facts: string | null }>;
}

export type Claim =
  | { outcome: 'claimed'; progress: RunProgress }
  | { outcome: 'missing' }
  | { outcome: 'done' }
  | { outcome: 'busy'; holder: string };

export interface CachedPageRow {
  url: string;
  finalUrl: string;
  fetchedAt: number;
  /** The validators: ETag and Last-Modified, as the server sent them. */
  etag: string | null;
  lastModified: string | null;
  /** CachePolicy.toObject(), parsed. */
  policy: unknown;
  extractor: number;
  title: string;
  kind: string;
  pages: number | null;
  text: string;
}

export interface ExtractionKey {
  sourceHash: string;
  question: string;
  model: string;
  promptVersion: number;
}

export interface CacheTally {
  count: number;
  /** Bytes stored: compressed texts and the rows that describe them. */
  bytes: number;
  /** Unix epoch ms of the oldest and newest entry; null when there is none. */
  oldest: number | null;
  newest: number | null;
}

export interface CacheStats {
  pages: CacheTally;
  extractions: CacheTally;
}

export interface Removed {
  count: number;
  bytes: number;
}
