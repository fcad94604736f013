import type { Store } from '../../store/store.js';

// A folder's passages are embedded once per process at a time, and not looked at again while the index
// is as it was: runs of one batch, or a worker's questions, share a folder.

/** Folders being embedded in this process, by store, folder and vector space. */
const embedding = new Map<string, Promise<void>>();
/**
 * Folders this process embedded whole, with the index's state then (last walk, writes), per store
 * object: another object's writes to the same database are not counted in this one's.
 */
const embedded = new WeakMap<Store['index'], Set<string>>();

/**
 * Runs `embed` (the folder's missing passages) unless this process embedded the folder whole in `space`
 * and the index has not changed since (no walk, no document written again): for a large folder, finding
 * nothing missing is two scans of its passages, which every question of a batch or a worker would
 * otherwise repeat. A run that finds another embedding the folder waits for it, then finds nothing left
 * to embed: no await between the last look and the set, so two never embed one folder at once.
 */
export async function embedOnce(store: Store, root: string, space: string, embed: () => Promise<void>) {
  const key = `${store.location}\n${root}\n${space}`;
  for (let running = embedding.get(key); running; running = embedding.get(key)) await running.catch(() => {});
  const job = (async () => {
    const state = `${root}\n${space}\n${(await store.index.walked(root))?.walkedAt}\n${store.index.writes}`;
    const done = embedded.get(store.index) ?? new Set<string>();
    embedded.set(store.index, done);
    if (done.has(state)) return;
    await embed();
    done.add(state);
  })();
  embedding.set(key, job);
  try {
    await job;
  } finally {
    if (embedding.get(key) === job) embedding.delete(key);
  }
}
