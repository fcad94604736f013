// What a span reader keeps of the texts it has read. A reader may walk a whole folder (embedding it), so
// it keeps the most recently used blocks and block lists, not every text it has read: a round of
// embedding reads at most a few hundred documents' blocks, and all of them stay while it lasts.

/** Blocks (16 KiB of text at most each) a reader keeps: 16 MiB of text at most. */
export const KEPT_BLOCKS = 1024;
/** Documents' block lists a reader keeps. */
export const KEPT_LISTS = 4096;

/** `map`'s value for `key`, made by `make` when missing; the `size` most recently used are kept. */
export function recent<K, V>(map: Map<K, V>, key: K, size: number, make: () => V): V {
  let value = map.get(key);
  if (value === undefined) {
    value = make();
    // A Map iterates in insertion order: its first key is the one used longest ago.
    if (map.size >= size) map.delete(map.keys().next().value as K);
  } else map.delete(key);
  map.set(key, value);
  return value;
}
