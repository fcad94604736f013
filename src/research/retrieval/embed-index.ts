import { AbortedError } from '../../errors.js';
import type { PreparedVector, Store } from '../../store/store.js';
import { embeddingText } from '../documents/embedding-text.js';

// Brings a folder's passage vectors up to date after its index: only passages whose text has no vector
// of the model yet, in batches, several in flight, each batch kept the moment it comes back. Stopped
// (Ctrl-C, a failure), what was kept stays kept, and the next run embeds only the rest.

/** Texts per request: what OpenAI, Ollama and the common local servers all take. */
export const BATCH_TEXTS = 64;
/** And at most this many characters, about 25,000 tokens, well under every server's request limit. */
const BATCH_CHARS = 100_000;

export interface EmbedTarget {
  /** The vectors' space: the model with its dimensions. */
  readonly space: string;
  /** Embeds texts (recorded, paid, retried, limited as every embedding call). */
  embedTexts(texts: string[]): Promise<ArrayLike<number>[]>;
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
/** Passages read per round: enough batches to keep `parallel` calls busy while earlier ones are written. */
const ROUND_BATCHES = 16;

/** How many passages were embedded. Throws what a call threw, after the batches already back are kept. */
export async function embedMissing(
  target: EmbedTarget,
  store: Store,
  root: string,
  options: { parallel: number; signal?: AbortSignal; onProgress?: (p: EmbedProgress) => void },
): Promise<number> {
  const total = await store.vectors.countMissing(root, target.space);
  if (total === 0) return 0;
  const progress = { done: 0, total };
  options.onProgress?.(progress);
  const read = store.index.spanReader();
  let pending: { hash: string; vector: PreparedVector }[] = [];
  const write = async () => {
    const rows = pending;
    pending = [];
    if (rows.length) await store.vectors.put(target.space, rows);
  };
  const size = BATCH_TEXTS * options.parallel * ROUND_BATCHES;
  // The passages of the round after `after`, with their texts; skipping texts of `unwritten` (the round
  // in flight, read before its vectors are kept).
  const readRound = async (after: number, unwritten: Set<string>) => {
    const found = await store.vectors.missing(root, target.space, size, after);
    if (found.length === 0) return undefined;
    // One text in several passages (a repeated disclaimer) is embedded once.
    const rows = [...new Map(found.map((r) => [r.hash, r])).values()].filter((r) => !unwritten.has(r.hash));
    const texts = await Promise.all(
      rows.map(async (r) => embeddingText(r.headingPath, await read(r.documentId, r.start, r.end))),
    );
    return { rows, texts, last: found.at(-1)!.id };
  };
  let coming = readRound(0, new Set());
  for (;;) {
    if (options.signal?.aborted) throw new AbortedError();
    const round = await coming;
    if (!round) break;
    const { rows, texts } = round;
    // The next round is read while this one's calls are out: the server is not left waiting between
    // rounds. A failure there is this loop's to throw, when it gets to it.
    coming = readRound(round.last, new Set(rows.map((r) => r.hash)));
    coming.catch(() => {});
    const batches = batchesOf(texts);
    let failure: unknown;
    let next = 0;
    // `parallel` calls in flight; each batch's vectors join the next write as they come back.
    const lane = async () => {
      while (failure === undefined && next < batches.length) {
        const batch = batches[next++]!;
        try {
          const vectors = await target.embedTexts(batch.map((i) => texts[i]!));
          for (const [k, i] of batch.entries())
            pending.push({ hash: rows[i]!.hash, vector: store.vectors.prepare(vectors[k]!) });
          progress.done += batch.length;
          options.onProgress?.(progress);
          if (pending.length >= WRITE_ROWS) await write();
        } catch (error) {
          failure ??= error;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(options.parallel, batches.length) }, lane));
    await write();
    if (failure !== undefined) throw failure;
  }
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
