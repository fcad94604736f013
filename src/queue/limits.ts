import { setTimeout as sleep } from 'node:timers/promises';
import { ConfigError } from '../errors.js';
import type { Db } from '../store/postgres/db.js';

// AGENT_PROVIDER_CONCURRENCY: at most N model calls in flight per provider across every worker of the
// team. A call holds one row of provider_slots; each take, renewal and release is one statement, its own
// transaction (no advisory lock or other session state, which pgbouncer's transaction pooling would break).
// A slot whose holder died is free again once its expiry passes.

/** Slots per provider: "4" for every provider, or "openai=4,anthropic=2" (others unlimited). */
export function parseProviderConcurrency(
  raw: string | undefined,
): ((provider: string) => number) | undefined {
  if (!raw) return undefined;
  const bad = () =>
    new ConfigError(
      `AGENT_PROVIDER_CONCURRENCY=${raw} is not a limit: expected a whole number such as 4, or provider=number pairs such as openai=4,anthropic=2.`,
    );
  if (/^\s*\d+\s*$/.test(raw)) {
    const n = Number(raw);
    if (n < 1) throw bad();
    return () => n;
  }
  const table = new Map<string, number>();
  for (const part of raw.split(',')) {
    const m = /^\s*([\w-]+)\s*=\s*(\d+)\s*$/.exec(part);
    if (!m || Number(m[2]) < 1) throw bad();
    table.set(m[1]!, Number(m[2]));
  }
  return (provider) => table.get(provider) ?? Number.POSITIVE_INFINITY;
}

/** How long a taken slot lasts without renewal. */
const SLOT_MS = 30_000;

/** A call gate over the database's slots (ResearchOptions.callSlots). */
export function providerSlots(
  db: Db,
  limitOf: (provider: string) => number,
  holder: string,
): <T>(provider: string, call: () => Promise<T>) => Promise<T> {
  const made = new Set<string>();
  return async (provider, call) => {
    const limit = limitOf(provider);
    if (!Number.isFinite(limit)) return call();
    if (!made.has(provider)) {
      await db.query(
        `INSERT INTO provider_slots (provider, slot) SELECT $1, s FROM pg_catalog.generate_series(0, $2 - 1) s
         ON CONFLICT DO NOTHING`,
        [provider, limit],
      );
      made.add(provider);
    }
    let slot: number | undefined;
    for (let wait = 20; slot === undefined; wait = Math.min(wait * 2, 200)) {
      const now = Date.now();
      const [row] = await db.query<{ slot: number }>(
        `UPDATE provider_slots SET holder = $3, expires_at = $4
         WHERE (provider, slot) = (SELECT provider, slot FROM provider_slots
           WHERE provider = $1 AND slot < $2 AND (holder IS NULL OR expires_at < $5)
           ORDER BY slot LIMIT 1 FOR UPDATE SKIP LOCKED)
         RETURNING slot`,
        [provider, limit, holder, now + SLOT_MS, now],
      );
      slot = row?.slot;
      if (slot === undefined) await sleep(wait + Math.random() * wait);
    }
    const renew = setInterval(() => {
      db.query(
        'UPDATE provider_slots SET expires_at = $4 WHERE provider = $1 AND slot = $2 AND holder = $3',
        [provider, slot, holder, Date.now() + SLOT_MS],
      ).catch(() => {});
    }, SLOT_MS / 3);
    renew.unref();
    try {
      return await call();
    } finally {
      clearInterval(renew);
      await db
        .query(
          'UPDATE provider_slots SET holder = NULL, expires_at = 0 WHERE provider = $1 AND slot = $2 AND holder = $3',
          [provider, slot, holder],
        )
        .catch(() => {});
    }
  };
}
