import { setTimeout as sleep } from 'node:timers/promises';
import { AbortedError } from '../../errors.js';
import { holderGone, newHolder } from '../../store/holder.js';
import type { Db } from '../../store/open.js';

// One process at a time indexes a content folder: the others wait for it and then find its work done,
// instead of reading and writing the same files at once. The lease is a row renewed while its holder
// works; a holder that died (SIGKILL, a crash) is recognised by its process id, or by a stale heartbeat.

const HEARTBEAT_MS = 2_000;
/** A holder silent for this long is taken to be gone (another machine sharing the file, a hung disk). */
const STALE_MS = 60_000;
const POLL_MS = 100;

export interface Lease {
  /** When it was taken: a walk starting now sees every change made before. */
  takenAt: number;
  release(): void;
}

/**
 * Waits until this process holds the lease of `root`; `waitedFor` is told the time the lease was first
 * found held by another process (undefined when it was free at once).
 */
export async function takeLease(
  db: Db,
  root: string,
  options: { signal?: AbortSignal; onWait?: () => void } = {},
): Promise<Lease> {
  const holder = newHolder();
  const take = db.transaction((now: number): boolean => {
    const row = db.prepare('SELECT holder, heartbeat FROM index_leases WHERE root = ?').get(root) as
      | { holder: string; heartbeat: number }
      | undefined;
    if (row && !holderGone(row, now, STALE_MS)) return false;
    db.prepare(
      `INSERT INTO index_leases (root, holder, heartbeat) VALUES (?, ?, ?)
       ON CONFLICT (root) DO UPDATE SET holder = excluded.holder, heartbeat = excluded.heartbeat`,
    ).run(root, holder, now);
    return true;
  });
  let told = false;
  for (;;) {
    const now = Date.now();
    if (take.immediate(now)) break;
    if (!told) options.onWait?.();
    told = true;
    if (options.signal?.aborted) throw new AbortedError();
    await sleep(POLL_MS, undefined, { signal: options.signal }).catch(() => {
      throw new AbortedError();
    });
  }
  const takenAt = Date.now();
  const beat = db.prepare('UPDATE index_leases SET heartbeat = ? WHERE root = ? AND holder = ?');
  const timer = setInterval(() => {
    try {
      beat.run(Date.now(), root, holder);
    } catch {
      // A missed heartbeat only matters after a minute of them; the next one may well succeed.
    }
  }, HEARTBEAT_MS);
  timer.unref();
  return {
    takenAt,
    release() {
      clearInterval(timer);
      db.prepare('DELETE FROM index_leases WHERE root = ? AND holder = ?').run(root, holder);
    },
  };
}
