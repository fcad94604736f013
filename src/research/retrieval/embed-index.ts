import { AbortedError } from '../../errors.js';
import type { Store } from '../../store/store.js';
import { type FolderIO, type HeldVector, localFolder } from './folder-io.js';
import { folderThread, THREAD_FROM } from './folder-thread.js';

// Brings a folder's passage vectors up to date after its index: only passages whose text has no vector
// of the model yet, in batches, several in flight, each batch kept the moment it comes back. Stopped
// (Ctrl-C, a failure), what was kept stays kept, and the next run embeds only the rest.

/**
 * Texts per request: what OpenAI, Ollama and most local servers take; one that takes fewer (TEI: 32) says
 * so, and the embedder splits its requests from then on (providers/embeddings.ts).
 */
export const BATCH_TEXTS = 64;
/** And at most this many characters, about 25,000 tokens, well under every server's request limit. */
const BATCH_CHARS = 100_000;

export interface EmbedTarget {
  /** The vectors' space: the model with its dimensions. */
  readonly space: string;
  /**
   * Embeds texts (paid, retried, limited as every embedding call), the call's ledger row written
   * through `record`.
   */
  embedTexts(texts: string[], record: FolderIO['record']): Promise<ArrayLike<number>[]>;
}

export interface EmbedProgress {
  done: number;
  total: number;
}

/**
 * Vectors written in one transaction, at most. Each row also goes into the (model, hash) index at a
 * random place, so a write rewrites most of the index pages it touches: 4,096 rows a transaction cost
 * a third of what 512 did, and even more against 64 (one batch). Ctrl-C writes what came back; a kill -9
 * loses at most these, which the next run embeds again.
 */
const WRITE_ROWS = 4096;
/** Writes under way at once (in a worker thread, or on a server) before a call waits for one. */
const WRITES_AHEAD = 2;
/** Passages read per round: enough batches to keep `parallel` calls busy while earlier ones are written. */
const ROUND_BATCHES = 16;

/** How many passages were embedded. Throws what a call threw, after the batches already back are kept. */
export async function embedMissing(
  target: EmbedTarget,
  store: Store,
  root: string,
  options: {
    parallel: number;
    signal?: AbortSignal;
    onProgress?: (p: EmbedProgress) => void;
    /** Passages to embed from which the reads and writes go to a worker thread (THREAD_FROM). */
    threadFrom?: number;
  },
): Promise<number> {
  const here = localFolder(store, root, target.space);
  const total = await here.countMissing();
  if (total === 0) return 0;
  const io =
    total >= (options.threadFrom ?? THREAD_FROM)
      ? ((await folderThread(store, root, target.space)) ?? here)
      : here;
  try {
    return await embedRounds(target, io, total, options);
  } finally {
    await io.close();
  }
}

async function embedRounds(
  target: EmbedTarget,
  io: FolderIO,
  total: number,
  options: { parallel: number; signal?: AbortSignal; onProgress?: (p: EmbedProgress) => void },
): Promise<number> {
  const progress = { done: 0, total };
  options.onProgress?.(progress);
  let pending: { hash: string; vector: HeldVector }[] = [];
  // Writes go on beside the calls (in a worker thread, or on a server); a call waits only when
  // WRITES_AHEAD of them are under way, and the step ends once all are done, however it ends.
  const writing = new Set<Promise<void>>();
  let writeFailure: unknown;
  const write = async () => {
    const rows = pending;
    pending = [];
    if (rows.length) {
      const done: Promise<void> = io.put(rows).then(
        () => {},
        (error: unknown) => {
          writeFailure ??= error;
        },
      );
      writing.add(done);
      void done.then(() => writing.delete(done));
    }
    while (writing.size >= WRITES_AHEAD) await Promise.race(writing);
  };
  const size = BATCH_TEXTS * options.parallel * ROUND_BATCHES;
  try {
    let coming = io.round(0, size);
    for (;;) {
      if (options.signal?.aborted) throw new AbortedError();
      const round = await coming;
      if (!round) break;
      const { hashes, texts } = round;
      // The next round is read while this one's calls are out: the server is not left waiting between
      // rounds. A failure there is this loop's to throw, when it gets to it.
      coming = io.round(round.last, size);
      coming.catch(() => {});
      const batches = batchesOf(texts);
      let failure: unknown;
      let next = 0;
      // `parallel` calls in flight; each batch's vectors join the next write as they come back.
      const lane = async () => {
        while (failure === undefined && next < batches.length) {
          const batch = batches[next++]!;
          try {
            const vectors = await target.embedTexts(
              batch.map((i) => texts[i]!),
              io.record,
            );
            for (const [k, i] of batch.entries())
              pending.push({ hash: hashes[i]!, vector: io.prepare(vectors[k]!) });
            progress.done += batch.length;
            options.onProgress?.(progress);
            if (pending.length >= WRITE_ROWS) await write();
            if (writeFailure !== undefined) throw writeFailure;
          } catch (error) {
            failure ??= error;
          }
        }
      };
      await Promise.all(Array.from({ length: Math.min(options.parallel, batches.length) }, lane));
      await write();
      if (failure !== undefined) throw failure;
    }
  } finally {
    // What came back is kept, whatever stopped the loop.
    await write();
    await Promise.all(writing);
  }
  if (writeFailure !== undefined) throw writeFailure;
  return progress.done;
}

/** Texts' indexes in request-sized batches: at most BATCH_TEXTS texts and about BATCH_CHARS characters. */
function batchesOf(texts: string[]): number[][] {
  const batches: number[][] = [];
  let chars = Number.POSITIVE_INFINITY;
  for (const [i, t] of texts.entries()) {
    if (chars + t.length > BATCH_CHARS || batches.at(-1)!.length >= BATCH_TEXTS) {
      batches.push([]);
      chars = 0;
    }
    batches.at(-1)!.push(i);
    chars += t.length;
  }
  return batches;
}
