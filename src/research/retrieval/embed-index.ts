import { AbortedError } from '../../errors.js';
import type { Store } from '../../store/store.js';
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
  /** Embeds texts as unit vectors (recorded, paid, retried, limited as every embedding call). */
  embedTexts(texts: string[]): Promise<Float32Array[]>;
}

export interface EmbedProgress {
  done: number;
  total: number;
}

/** How many passages were embedded. Throws what a call threw, after the batches in flight are kept. */
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
  let after = 0;
  for (;;) {
    if (options.signal?.aborted) throw new AbortedError();
    const found = await store.vectors.missing(root, target.space, BATCH_TEXTS * options.parallel, after);
    if (found.length === 0) break;
    after = found.at(-1)!.id;
    // One text in several passages (a repeated disclaimer) is embedded once.
    const rows = [...new Map(found.map((r) => [r.hash, r])).values()];
    const texts = await Promise.all(
      rows.map(async (r) => embeddingText(r.headingPath, await read(r.documentId, r.start, r.end))),
    );
    const batches: number[][] = [];
    let chars = Number.POSITIVE_INFINITY;
    texts.forEach((t, i) => {
      if (chars + t.length > BATCH_CHARS || batches.at(-1)!.length >= BATCH_TEXTS) {
        batches.push([]);
        chars = 0;
      }
      batches.at(-1)!.push(i);
      chars += t.length;
    });
    const settled = await Promise.allSettled(
      batches.map(async (batch) => {
        const vectors = await target.embedTexts(batch.map((i) => texts[i]!));
        await store.vectors.put(
          target.space,
          batch.map((i, k) => ({ hash: rows[i]!.hash, vector: vectors[k]! })),
        );
        progress.done += batch.length;
        options.onProgress?.(progress);
      }),
    );
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) throw failed.reason;
  }
  return progress.done;
}
