import { createHash } from 'node:crypto';
import { AgentError } from '../../errors.js';
import type { Client, Db } from './db.js';

// What makes `agent db copy` safe to run again, and to run twice at once: one copy at a time per target
// database (a session advisory lock, held for the whole copy), and each copied row's key recorded in
// the target (copied_rows) in the transaction that copies it.

/** The copy's lock: any constant shared by every agent process ('acopy' in ASCII). */
const COPY_LOCK = 0x61636f7079;

/** Holds the target's copy lock until `release`; a second copy is told another is running. */
export async function holdCopyLock(db: Db): Promise<{ release(): Promise<void> }> {
  const client = await db.connect();
  try {
    const { rows } = await client.query('SELECT pg_catalog.pg_try_advisory_lock($1::bigint) AS got', [
      COPY_LOCK,
    ]);
    if (!(rows[0] as { got: boolean } | undefined)?.got)
      throw new AgentError(
        `Another copy is running into ${db.location}; try again when it has finished (it copies only what is new).`,
      );
  } catch (error) {
    client.release();
    throw error;
  }
  return {
    async release() {
      await client.query('SELECT pg_catalog.pg_advisory_unlock($1::bigint)', [COPY_LOCK]).catch(() => {});
      client.release();
    },
  };
}

export type CopiedKind = 'ledger' | 'note' | 'report';

/** A source row's key: its kind, its id in the file and every column, so distinct rows never share one. */
export const sourceKey = (kind: CopiedKind, row: Record<string, unknown>): string =>
  createHash('sha256')
    .update(
      JSON.stringify([
        kind,
        Object.entries(row).map(([k, v]) => [k, Buffer.isBuffer(v) ? v.toString('base64') : v]),
      ]),
    )
    .digest('hex');

/** Records the key; false when it was recorded already (the row was copied before). */
export async function claimKey(c: Client, kind: CopiedKind, key: string): Promise<boolean> {
  const { rows } = await c.query(
    'INSERT INTO copied_rows (kind, source_key) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING kind',
    [kind, key],
  );
  return rows.length > 0;
}

const TABLES: Record<CopiedKind, string> = { ledger: 'usage_ledger', note: 'notes', report: 'research_runs' };

/**
 * When no row of this kind was recorded yet but the table has rows, a copy made before keys were
 * recorded may have brought them: the newest id then, so that a source row equal in every column to
 * one of those (and not to one this copy adds) is taken as copied. Null: keys alone decide.
 */
export async function beforeKeys(db: Db, kind: CopiedKind): Promise<number | null> {
  if (await db.one('SELECT 1 FROM copied_rows WHERE kind = $1 LIMIT 1', [kind])) return null;
  const row = await db.one<{ max: number | null }>(`SELECT max(id) AS max FROM ${TABLES[kind]}`);
  return row?.max ?? null;
}
