import { setTimeout as sleep } from 'node:timers/promises';
import { AbortedError } from '../../errors.js';
import { newHolder } from '../../store/holder.js';
import type { IndexStore } from '../../store/store.js';

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
  release(): Promise<void>;
}

/** Waits until this process holds the lease of `root`; `onWait` is told once when another holds it. */
export async function takeLease(
  index: IndexStore,
  root: string,
  options: { signal?: AbortSignal; onWait?: () => void } = {},
): Promise<Lease> {
  const holder = newHolder();
  let told = false;
  for (;;) {
    if (await index.takeLease(root, holder, Date.now(), STALE_MS)) break;
    if (!told) options.onWait?.();
    told = true;
    if (options.signal?.aborted) throw new AbortedError();
    await sleep(POLL_MS, undefined, { signal: options.signal }).catch(() => {
      throw new AbortedError();
    });
  }
  const takenAt = Date.now();
  const timer = setInterval(() => {
    // A missed heartbeat only matters after a minute of them; the next one may well succeed.
    index.renewLease(root, holder, Date.now()).catch(() => {});
  }, HEARTBEAT_MS);
  timer.unref();
  return {
    takenAt,
    async release() {
      clearInterval(timer);
      await index.releaseLease(root, holder);
    },
  };
}
