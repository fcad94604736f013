import { AgentError } from '../../errors.js';
import type { Message } from '../../types.js';
import { type SessionSummaryRow, toSessionSummary } from '../rows.js';
import type { Exchange, SessionSummary, StoredMessage } from '../types.js';
import { type Db, writeError } from './open.js';

// Chat sessions: one row per conversation, one row per message. A session row appears with its first
// completed exchange, so an empty chat leaves nothing listed.

const SUMMARY = `SELECT s.*,
  (SELECT COUNT(DISTINCT exchange) FROM chat_messages m WHERE m.session_id = s.id) AS exchanges,
  (SELECT COUNT(*) FROM usage_ledger u WHERE u.run_id = s.run_id) AS calls,
  (SELECT COALESCE(SUM(cost_usd IS NULL), 0) FROM usage_ledger u WHERE u.run_id = s.run_id) AS unpriced,
  (SELECT SUM(cost_usd) FROM usage_ledger u WHERE u.run_id = s.run_id) AS priced_usd
FROM chat_sessions s`;

/**
 * Appends one completed exchange in a single transaction, creating the session first when `sessionId`
 * is undefined. Returns the session's id. A failed write leaves nothing behind and says what to do.
 */
export function saveExchange(
  db: Db,
  sessionId: number | undefined,
  runId: string,
  exchange: Exchange,
  user: string | null = null,
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
          `INSERT INTO chat_sessions (run_id, created_at, updated_at, provider, model, first_message, created_by)
           VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`,
        )
        .pluck()
        .get(runId, ts, ts, exchange.provider, exchange.model, first.content, user) as number);
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

/**
 * Whose sessions a read sees: `owner`'s and those kept before agent recorded people (no owner), or
 * everyone's when `owner` is undefined.
 */
const ownedBy = (owner: string | undefined) =>
  owner === undefined ? '1' : '(s.created_by IS NULL OR s.created_by = @owner)';

export function getSession(db: Db, id: number, owner?: string): SessionSummary | undefined {
  const row = db.prepare(`${SUMMARY} WHERE s.id = @id AND ${ownedBy(owner)}`).get({ id, owner }) as
    | SessionSummaryRow
    | undefined;
  return row && toSessionSummary(row);
}

/** The session used most recently: the one `agent chat --continue` resumes. */
export function latestSession(db: Db, owner?: string): SessionSummary | undefined {
  return listSessions(db, 1, owner)[0];
}

/** Most recently used first. */
export function listSessions(db: Db, limit = 20, owner?: string): SessionSummary[] {
  return (
    db
      .prepare(`${SUMMARY} WHERE ${ownedBy(owner)} ORDER BY s.updated_at DESC, s.id DESC LIMIT @limit`)
      .all({ limit, owner }) as SessionSummaryRow[]
  ).map(toSessionSummary);
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
export function deleteSession(db: Db, id: number, owner?: string): boolean {
  const remove = db.transaction(() => {
    if (
      !db.prepare(`SELECT 1 FROM chat_sessions s WHERE s.id = @id AND ${ownedBy(owner)}`).get({ id, owner })
    )
      return false;
    db.prepare('DELETE FROM chat_messages WHERE session_id = ?').run(id);
    return db.prepare('DELETE FROM chat_sessions WHERE id = ?').run(id).changes > 0;
  });
  try {
    return remove.immediate();
  } catch (error) {
    throw writeError(db, error);
  }
}
