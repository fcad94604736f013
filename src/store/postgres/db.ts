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
export type Row = Record<string, unknown>;

export class Db {
  readonly pool: pg.Pool;
  constructor(
    config: pg.PoolConfig,
    readonly location: string,
  ) {
    this.pool = new pg.Pool({ ...config, types });
    // An idle connection the server closed (a restart) must not crash the process: the next query
    // gets a new one.
    this.pool.on('error', () => {});
  }

  async query<T = Row>(sql: string, params: unknown[] = []): Promise<T[]> {
    try {
      return (await this.pool.query(sql, params)).rows as T[];
    } catch (error) {
      throw runFailure(this.location, error);
    }
  }

  async one<T = Row>(sql: string, params: unknown[] = []): Promise<T | undefined> {
    return (await this.query<T>(sql, params))[0];
  }

  /** `work` in one transaction on one connection: committed when it returns, rolled back when it throws. */
  async tx<T>(work: (c: Client) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw runFailure(this.location, error);
    }
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const result = await work(client);
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
