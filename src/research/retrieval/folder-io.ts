import type { PriceTable } from '../../providers/prices.js';
import type { PreparedVector, Store } from '../../store/store.js';
import type { LedgerEntry } from '../../store/types.js';
import { embeddingText } from '../documents/embedding-text.js';

// What embedding a folder reads and writes: its passages without a vector and their texts, the vectors
// that come back, the calls' ledger rows. Done here on the store (localFolder), or for a large SQLite
// folder by a worker thread with a connection of its own (folder-thread.ts), which runs the same code.

/** A round of passages without a vector: their texts' hashes and texts, and the id the next begins after. */
export interface Round {
  hashes: string[];
  texts: string[];
  last: number;
}

declare const held: unique symbol;
/** A vector as put() takes it (FolderIO.prepare), opaque to everything else. */
export type HeldVector = { readonly [held]: true };

export interface FolderIO {
  countMissing(): Promise<number>;
  /**
   * Up to `size` passages after `after` (by id) that have no vector, one per text, without the texts the
   * last round handed out (still being embedded); undefined when none is left. Read once every put()
   * made before it is written, so that no other passage is handed out twice.
   */
  round(after: number, size: number): Promise<Round | undefined>;
  /** A vector as the model gave it, in the form put() takes: taken the moment it comes back. */
  prepare(vector: ArrayLike<number>): HeldVector;
  put(rows: { hash: string; vector: HeldVector }[]): Promise<void>;
  /** Writes an embedding call's ledger row. */
  record(entry: LedgerEntry, prices?: PriceTable): Promise<void>;
  close(): Promise<void>;
}

export function localFolder(store: Store, root: string, space: string): FolderIO {
  const read = store.index.spanReader();
  let handedOut = new Set<string>();
  const writing = new Set<Promise<void>>();
  return {
    countMissing: () => store.vectors.countMissing(root, space),
    async round(after, size) {
      await Promise.allSettled([...writing]);
      const found = await store.vectors.missing(root, space, size, after);
      if (found.length === 0) return undefined;
      // One text in several passages (a repeated disclaimer) is embedded once.
      const rows = [...new Map(found.map((r) => [r.hash, r])).values()].filter((r) => !handedOut.has(r.hash));
      handedOut = new Set(rows.map((r) => r.hash));
      const texts = await Promise.all(
        rows.map(async (r) => embeddingText(r.headingPath, await read(r.documentId, r.start, r.end))),
      );
      return { hashes: rows.map((r) => r.hash), texts, last: found.at(-1)!.id };
    },
    prepare: (vector) => store.vectors.prepare(vector) as unknown as HeldVector,
    put(rows) {
      const done = rows.length
        ? store.vectors.put(space, rows as unknown as { hash: string; vector: PreparedVector }[])
        : Promise.resolve();
      writing.add(done);
      const settled = () => writing.delete(done);
      done.then(settled, settled);
      return done;
    },
    record: async (entry, prices) => {
      await store.ledger.record(entry, prices);
    },
    close: async () => {},
  };
}
