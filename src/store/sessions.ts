import { AgentError } from '../errors.js';
import type { Message } from '../types.js';
import { type Db, writeError } from './open.js';

// Chat sessions: one row per conversation, one row per message. A session row appears with its first
// completed exchange, so an empty chat leaves nothing listed.

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

interface SummaryRow {
  id: number;
  run_id: string;
  created_at: number;
  updated_at: number;
  provider: string;
  model: string;
  first_message: string;
  exchanges: number;
  calls: number;
  unpriced: number;
  priced_usd: number | null;
}

const SUMMARY = `SELECT s.*,
  (SELECT COUNT(DISTINCT exchange) FROM chat_messages m WHERE m.session_id = s.id) AS exchanges,
  (SELECT COUNT(*) FROM usage_ledger u WHERE u.run_id = s.run_id) AS calls,
  (SELECT COALESCE(SUM(cost_usd IS NULL), 0) FROM usage_ledger u WHERE u.run_id = s.run_id) AS unpriced,
  (SELECT SUM(cost_usd) FROM usage_ledger u WHERE u.run_id = s.run_id) AS priced_usd
FROM chat_sessions s`;

const toSummary = (r: SummaryRow): SessionSummary => ({
  id: r.id,
  runId: r.run_id,
  createdAt: new Date(r.created_at).toISOString(),
  updatedAt: new Date(r.updated_at).toISOString(),
  provider: r.provider,
  model: r.model,
  exchanges: r.exchanges,
  calls: r.calls,
  unpricedCalls: r.unpriced,
  pricedUsd: r.priced_usd,
  firstMessage: r.first_message,
});

/** The whole cost when it is known: 0 for no calls, null as soon as one call had no known price. */
export const sessionCostUsd = (s: SessionSummary): number | null =>
  s.unpricedCalls > 0 ? null : (s.pricedUsd ?? 0);

/**
 * Appends one completed exchange in a single transaction, creating the session first when `sessionId`
 * is undefined. Returns the session's id. A failed write leaves nothing behind and says what to do.
 */
export function saveExchange(
  db: Db,
  sessionId: number | undefined,
  runId: string,
  exchange: Exchange,
): number {
  const first = exchange.messages[0];
  if (first?.role !== 'user') throw new Error('an exchange starts with the user message');
  const ts = exchange.ts ?? Date.now();
  const write = db.transaction((): number => {
    if (sessionId !== undefined && !db.prepare('SELECT 1 FROM chat_sessions WHERE id = ?').get(sessionId)) {
      throw new AgentError(
        `Chat session #${sessionId} was deleted while this chat was open, so this exchange was not saved; /clear starts a new session.`,
      );
    }
    const id =
      sessionId ??
      (db
        .prepare(
          `INSERT INTO chat_sessions (run_id, created_at, updated_at, provider, model, first_message)
           VALUES (?, ?, ?, ?, ?, ?) RETURNING id`,
        )
        .pluck()
        .get(runId, ts, ts, exchange.provider, exchange.model, first.content) as number);
    const next = db
      .prepare(
        'SELECT COALESCE(MAX(seq) + 1, 0) AS seq, COALESCE(MAX(exchange) + 1, 1) AS exchange FROM chat_messages WHERE session_id = ?',
      )
      .get(id) as { seq: number; exchange: number };
    const insert = db.prepare(
      'INSERT INTO chat_messages (session_id, seq, exchange, provider, model, message) VALUES (?, ?, ?, ?, ?, ?)',
    );
    exchange.messages.forEach((m, i) => {
      insert.run(id, next.seq + i, next.exchange, exchange.provider, exchange.model, JSON.stringify(m));
    });
    db.prepare('UPDATE chat_sessions SET updated_at = ?, provider = ?, model = ? WHERE id = ?').run(
      ts,
      exchange.provider,
      exchange.model,
      id,
    );
    return id;
  });
  try {
    // IMMEDIATE takes the write lock at the start, so two processes appending to one session queue up.
    return write.immediate();
  } catch (error) {
    throw writeError(db, error);
  }
}

export function getSession(db: Db, id: number): SessionSummary | undefined {
  const row = db.prepare(`${SUMMARY} WHERE s.id = ?`).get(id) as SummaryRow | undefined;
  return row && toSummary(row);
}

/** The session used most recently: the one `agent chat --continue` resumes. */
export function latestSession(db: Db): SessionSummary | undefined {
  const row = db.prepare(`${SUMMARY} ORDER BY s.updated_at DESC, s.id DESC LIMIT 1`).get() as
    | SummaryRow
    | undefined;
  return row && toSummary(row);
}

/** Most recently used first. */
export function listSessions(db: Db, limit = 20): SessionSummary[] {
  return (
    db.prepare(`${SUMMARY} ORDER BY s.updated_at DESC, s.id DESC LIMIT ?`).all(limit) as SummaryRow[]
  ).map(toSummary);
}

/** A session's messages in the order they were said. */
export function loadMessages(db: Db, id: number): StoredMessage[] {
  const rows = db
    .prepare('SELECT exchange, provider, model, message FROM chat_messages WHERE session_id = ? ORDER BY seq')
    .all(id) as { exchange: number; provider: string; model: string; message: string }[];
  return rows.map((r) => ({
    exchange: r.exchange,
    provider: r.provider,
    model: r.model,
    message: JSON.parse(r.message) as Message,
  }));
}

/** Removes a session and its messages (its ledger rows stay: what was spent was spent); false if none. */
export function deleteSession(db: Db, id: number): boolean {
  const remove = db.transaction(() => {
    db.prepare('DELETE FROM chat_messages WHERE session_id = ?').run(id);
    return db.prepare('DELETE FROM chat_sessions WHERE id = ?').run(id).changes > 0;
  });
  try {
    return remove.immediate();
  } catch (error) {
    throw writeError(db, error);
  }
}
