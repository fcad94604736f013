import { AgentError } from '../../errors.js';
import type { Message } from '../../types.js';
import { type SessionSummaryRow, toSessionSummary } from '../rows.js';
import type { Exchange, SessionSummary, SessionsStore, StoredMessage } from '../store.js';
import { type Db, rows } from './db.js';

// Chat sessions on PostgreSQL: one row per conversation, one per message, an exchange appended in one
// transaction. A session is its creator's: without `all` only this user's are listed. Where each person
// connects with their own role, row-level security (014_people.sql) hides others' sessions on the server.

const SUMMARY = `SELECT s.id, s.run_id, s.created_at, s.updated_at, s.provider, s.model, s.first_message, s.created_by,
  (SELECT count(DISTINCT exchange) FROM chat_messages m WHERE m.session_id = s.id) AS exchanges,
  u.calls, u.unpriced, u.priced_usd
FROM chat_sessions s CROSS JOIN LATERAL (
  SELECT count(*) AS calls, count(*) FILTER (WHERE cost_usd IS NULL) AS unpriced, sum(cost_usd) AS priced_usd
  FROM usage_ledger l WHERE l.run_id = s.run_id
) u`;

export class PgSessions implements SessionsStore {
  constructor(
    private readonly db: Db,
    private readonly user: string,
  ) {}

  async saveExchange(sessionId: number | undefined, runId: string, exchange: Exchange): Promise<number> {
    const first = exchange.messages[0];
    if (first?.role !== 'user') throw new Error('an exchange starts with the user message');
    const ts = exchange.ts ?? Date.now();
    return this.db.tx(async (c) => {
      let id = sessionId;
      if (id === undefined) {
        const [row] = await rows<{ id: number }>(
          c,
          `INSERT INTO chat_sessions (run_id, created_at, updated_at, provider, model, first_message, created_by)
           VALUES ($1, $2, $2, $3, $4, $5, $6) RETURNING id`,
          [runId, ts, exchange.provider, exchange.model, first.content, this.user],
        );
        id = row!.id;
      } else {
        // Locked, so two processes appending to one session take their turns.
        const [found] = await rows(c, 'SELECT 1 FROM chat_sessions WHERE id = $1 FOR UPDATE', [id]);
        if (!found)
          throw new AgentError(
            `Chat session #${id} was deleted while this chat was open, so this exchange was not saved; /clear starts a new session.`,
          );
      }
      const [next] = await rows<{ seq: number; exchange: number }>(
        c,
        `SELECT coalesce(max(seq) + 1, 0) AS seq, coalesce(max(exchange) + 1, 1) AS exchange
         FROM chat_messages WHERE session_id = $1`,
        [id],
      );
      const messages = exchange.messages.map((m) => JSON.stringify(m));
      await c.query(
        `INSERT INTO chat_messages (session_id, seq, exchange, provider, model, message)
         SELECT $1, $2 + i - 1, $3, $4, $5, m::json FROM pg_catalog.unnest($6::text[]) WITH ORDINALITY AS t (m, i)`,
        [id, next!.seq, next!.exchange, exchange.provider, exchange.model, messages],
      );
      await c.query('UPDATE chat_sessions SET updated_at = $1, provider = $2, model = $3 WHERE id = $4', [
        ts,
        exchange.provider,
        exchange.model,
        id,
      ]);
      return id;
    });
  }

  /**
   * The condition for this user's sessions, and those kept before agent recorded people (no owner:
   * everyone's); none when all sessions are asked for.
   */
  private mine(all: boolean | undefined, params: unknown[]): string {
    if (all) return '';
    params.push(this.user);
    return ` AND (s.created_by IS NULL OR s.created_by = $${params.length})`;
  }

  async get(id: number, options: { all?: boolean } = {}): Promise<SessionSummary | undefined> {
    const params: unknown[] = [id];
    const row = await this.db.one<SessionSummaryRow>(
      `${SUMMARY} WHERE s.id = $1${this.mine(options.all, params)}`,
      params,
    );
    return row && toSessionSummary(row);
  }

  async latest(options: { all?: boolean } = {}): Promise<SessionSummary | undefined> {
    return (await this.list({ ...options, limit: 1 }))[0];
  }

  async list(options: { limit?: number; all?: boolean } = {}): Promise<SessionSummary[]> {
    const params: unknown[] = [options.limit ?? 20];
    const where = this.mine(options.all, params);
    return (
      await this.db.query<SessionSummaryRow>(
        `${SUMMARY} WHERE true${where} ORDER BY s.updated_at DESC, s.id DESC LIMIT $1`,
        params,
      )
    ).map(toSessionSummary);
  }

  async messages(id: number): Promise<StoredMessage[]> {
    const found = await this.db.query<{
      exchange: number;
      provider: string;
      model: string;
      message: Message;
    }>('SELECT exchange, provider, model, message FROM chat_messages WHERE session_id = $1 ORDER BY seq', [
      id,
    ]);
    return found.map((r) => ({
      exchange: r.exchange,
      provider: r.provider,
      model: r.model,
      message: r.message,
    }));
  }

  /** Deletes one of this user's sessions (or an ownerless one); false for none, or another's. */
  async delete(id: number): Promise<boolean> {
    const params: unknown[] = [id];
    const where = this.mine(false, params).replaceAll('s.created_by', 'created_by');
    return (
      (await this.db.query(`DELETE FROM chat_sessions WHERE id = $1${where} RETURNING id`, params)).length > 0
    );
  }
}
