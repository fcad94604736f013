import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';

// Who holds a lease row (an index lease, a research run being continued): host:pid:token, so that a
// holder that died (SIGKILL, a crash) is recognised by its process id, or by a stale heartbeat.

/** A new holder name for this process. */
export const newHolder = (): string => `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;

/** A holder on this machine whose process has ended, or any holder silent for `staleMs`. */
export function holderGone(
  row: { holder: string; heartbeat: number },
  now: number,
  staleMs: number,
): boolean {
  if (now - row.heartbeat > staleMs) return true;
  const [host, pid] = row.holder.split(':');
  if (host !== hostname()) return false;
  try {
    process.kill(Number(pid), 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** A research run's holder silent for this long is taken to be gone (another machine, a hung disk). */
export const RUN_STALE_MS = 60_000;
