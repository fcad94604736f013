import pg from 'pg';
import { runFailure } from './errors.js';

// The pool and its two ways in: one statement, or several in one short transaction. Every failure goes
// through runFailure, so a lost server is one clear line; bigint and numeric values arrive as numbers
// (every count, id and epoch millisecond agent stores is far below 2^53).

const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === 20 || oid === 1700) return (value: string) => Number(value); // int8, numeric
    return pg.types.getTypeParser(oid, format);
  },
} as pg.CustomTypesConfig;

export type Client = pg.PoolClient;

/** Connections whose search_path is set (a connection lives as long as its client object). */
const pinned = new WeakSet<pg.PoolClient>();

/** A failure that leaves the connection unusable: it is dropped, not handed out again. */
const lost = (error: unknown): boolean => {
  const code = String((error as { code?: unknown } | null)?.code ?? '');
  return code.startsWith('08') || code.startsWith('57P') || /Connection terminated/i.test(String(error));
};

/** The schema agent's tables live in. */
export const APP_SCHEMA = 'public';

/**
 * Set on every connection before its first statement: pg_catalog first, so a function or operator a
 * member creates in the app's schema never shadows a built-in one of the same argument types
 * (CVE-2018-1058); calls that take user input are schema-qualified as well, since a more specific
 * overload (unnest(text[]) over unnest(anyarray)) wins wherever it is on the path.
 */
export const PIN_SEARCH_PATH = `SET search_path = pg_catalog, ${APP_SCHEMA}`;
export type Row = Record<string, unknown>;

/**
 * PostgreSQL's text cannot hold U+0000 ("invalid byte sequence"): each one in a parameter (a chat
 * message, a batch question, a copied row) is stored as U+FFFD instead, and the store says so once.
 */
export function withoutNul(value: unknown, found: { nul: boolean }): unknown {
  if (typeof value === 'string') {
    if (!value.includes('\u0000')) return value;
    found.nul = true;
    return value.replaceAll('\u0000', '\uFFFD');
  }
  if (Array.isArray(value)) return value.map((v) => withoutNul(v, found));
  return value;
}

export class Db {
  readonly pool: pg.Pool;
  /** Told once when a NUL was replaced (openPostgres passes the CLI's notice line). */
  onNotice: ((message: string) => void) | undefined;
  private nulTold = false;
  constructor(
    config: pg.PoolConfig,
    readonly location: string,
  ) {
    this.pool = new pg.Pool({ ...config, types });
    // An idle connection the server closed (a restart) must not crash the process: the next query
    // gets a new one. A connection in use that breaks emits 'error' on its client as well as failing
    // the query: each client gets its own listener, so the failed query is the one report.
    this.pool.on('error', () => {});
    this.pool.on('connect', (client) => client.on('error', () => {}));
  }

  /**
   * A connection of the pool, its search_path pinned the first time it is handed out. Its errors are
   * the driver's own (openPostgres explains a failure to connect differently from a lost connection).
   */
  async connect(): Promise<pg.PoolClient> {
    const client = await this.pool.connect();
    if (!pinned.has(client)) {
      try {
        await client.query(PIN_SEARCH_PATH);
      } catch (error) {
        client.release(error as Error);
        throw error;
      }
      pinned.add(client);
    }
    return client;
  }

  private async checkout(): Promise<pg.PoolClient> {
    try {
      return await this.connect();
    } catch (error) {
      throw runFailure(this.location, error);
    }
  }

  /** The parameters PostgreSQL can store (see withoutNul). */
  clean(params: unknown[]): unknown[] {
    const found = { nul: false };
    const cleaned = params.map((p) => withoutNul(p, found));
    if (found.nul && !this.nulTold) {
      this.nulTold = true;
      this.onNotice?.(
        'A text held NUL characters, which PostgreSQL cannot store: each was saved as U+FFFD (�).',
      );
    }
    return cleaned;
  }

  async query<T = Row>(sql: string, params: unknown[] = []): Promise<T[]> {
    const client = await this.checkout();
    let broken: Error | undefined;
    try {
      return (await client.query(sql, this.clean(params))).rows as T[];
    } catch (error) {
      if (lost(error)) broken = error as Error;
      throw runFailure(this.location, error);
    } finally {
      client.release(broken);
    }
  }

  async one<T = Row>(sql: string, params: unknown[] = []): Promise<T | undefined> {
    return (await this.query<T>(sql, params))[0];
  }

  /** `work` in one transaction on one connection: committed when it returns, rolled back when it throws. */
  async tx<T>(work: (c: Client) => Promise<T>): Promise<T> {
    const client = await this.checkout();
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const result = await work(this.cleaning(client));
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch((e: Error) => {
        broken = e;
      });
      throw runFailure(this.location, error);
    } finally {
      client.release(broken);
    }
  }

  /** The transaction's connection as `work` sees it: every statement's parameters made storable. */
  private cleaning(client: pg.PoolClient): pg.PoolClient {
    return new Proxy(client, {
      get: (target, key) => {
        if (key === 'query')
          return (sql: string, params?: unknown[]) =>
            target.query(sql, params === undefined ? undefined : this.clean(params));
        const value = Reflect.get(target, key, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}

/** The row with who created it (`user`, '' for rows kept before people were recorded). */
export const withUser = <T extends object>(
  row: T,
  createdBy: string | null | undefined,
): T & { user: string } => ({ ...row, user: createdBy ?? '' });

/** Rows of one statement on a transaction's connection. */
export async function rows<T = Row>(c: Client, sql: string, params: unknown[] = []): Promise<T[]> {
  return (await c.query(sql, params)).rows as T[];
}
