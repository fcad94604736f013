import type { Store, StoreStatus } from '../../store/store.js';
import { openDb } from '../open-db.js';
import { formatInt, styleFor, table } from '../style.js';

// `agent db status` and `agent db migrate`: through the store, so they say the same of an SQLite file
// and of a team's PostgreSQL server. Neither applies a step on opening: status only reads, and migrate
// applies the pending steps itself, to say which.

export interface DbStoreOptions {
  json?: boolean;
  db?: string;
}

export async function runDbStatus(options: DbStoreOptions): Promise<void> {
  const store = await openDb(options.db, { migrate: false });
  let status: StoreStatus;
  try {
    status = await store.status();
  } finally {
    await store.close();
  }
  warn(status);
  if (options.json) {
    process.stdout.write(`${JSON.stringify({ ...status, user: store.user }, null, 2)}\n`);
    return;
  }
  const s = styleFor(process.stdout);
  const { counts } = status;
  const rows = [
    ['reports', counts.reports],
    ['notes', counts.notes],
    ['chat sessions', counts.sessions],
    ['ledger rows', counts.ledger],
    ['documents', counts.documents],
  ].map(([what, n]) => [String(what), formatInt(Number(n))]);
  process.stdout.write(
    `${[
      `${s.bold(KIND[status.kind])} ${status.location}`,
      `Schema version ${status.schemaVersion}${schemaNote(status)}`,
      `You are ${store.user} (AGENT_USER, else your user name).`,
      '',
      table(['KIND', 'ROWS'], rows),
    ].join('\n')}\n`,
  );
}

export async function runDbMigrate(options: DbStoreOptions): Promise<void> {
  const store = await openDb(options.db, { migrate: false });
  let applied: string[];
  let status: StoreStatus;
  try {
    applied = await store.migrate();
    // The job queue's schema (pg-boss's), made and upgraded by the admin along with agent's own tables.
    if (store.kind === 'postgres' && !store.readOnly) {
      const { installQueue, mayInstall } = await import('../../queue/boss.js');
      const { db } = store as import('../../store/postgres/store.js').PostgresStore;
      if ((await mayInstall(db)) && (await installQueue(db))) applied.push('job queue (schema agent_queue)');
    }
    status = await store.status();
  } finally {
    await store.close();
  }
  warn(status);
  if (options.json) {
    const { kind, location, schemaVersion } = status;
    process.stdout.write(`${JSON.stringify({ kind, location, applied, schemaVersion }, null, 2)}\n`);
    return;
  }
  process.stdout.write(`${migrated(store, applied, status)}\n`);
}

/** Each security warning, one line on stderr: stdout stays the report (or the JSON) scripts read. */
function warn(status: StoreStatus): void {
  for (const w of status.warnings ?? []) process.stderr.write(`agent: warning: ${w}\n`);
}

const KIND: Record<StoreStatus['kind'], string> = { sqlite: 'SQLite file', postgres: 'PostgreSQL' };

function schemaNote(status: StoreStatus): string {
  const n = status.pending.length;
  if (n === 0) return ' (up to date).';
  return `: ${n} step${n === 1 ? '' : 's'} of this version pending (${status.pending.join(', ')}); agent db migrate applies ${n === 1 ? 'it' : 'them'}.`;
}

function migrated(store: Store, applied: string[], status: StoreStatus): string {
  if (applied.length === 0)
    return `${store.location} is up to date (schema version ${status.schemaVersion}): nothing to apply.`;
  return [
    ...applied.map((step) => `Applied ${step}`),
    `${store.location} is now at schema version ${status.schemaVersion}.`,
  ].join('\n');
}
