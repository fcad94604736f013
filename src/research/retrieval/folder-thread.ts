import { Worker } from 'node:worker_threads';
import { StoreError } from '../../store/errors.js';
import type { Store } from '../../store/store.js';
import { joinCompacts } from '../../store/vectors.js';
import { workerScript } from '../../worker-script.js';
import type { FolderIO, HeldVector } from './folder-io.js';
import type { FolderOp, FolderReply, FolderRequest, FolderThreadData } from './folder-worker.js';

// A large SQLite folder's embedding reads and writes in a worker thread (folder-worker.ts), with a
// connection of its own: finding the passages without a vector, reading and decompressing their texts,
// writing the vectors and the calls' ledger rows run on the other core, beside the calls and the vectors'
// quantizing here: on 100,000 passages, 2.0 s of this thread's work beyond the calls became 1.1–1.2 s.
// The worker runs the compiled folder-worker.js (worker-script.ts); without it, or when the file cannot
// take a second connection (in memory, read-only, held alone on a full disk), this thread does the work.

/** Below this many passages to embed, starting the thread (about 50 ms) costs more than it saves. */
export const THREAD_FROM = 4096;

/** SQLite's prepared vector (SqliteVectors.prepare). */
type Compact = Parameters<typeof joinCompacts>[0][number];

/** The folder's reads and writes in a worker thread; undefined when this store or build cannot have one. */
export async function folderThread(store: Store, root: string, space: string): Promise<FolderIO | undefined> {
  const file = store.sharedFile;
  const script = file && workerScript(import.meta.url, 'research/retrieval', 'folder-worker.js');
  if (!file || !script) return undefined;
  const worker = new Worker(script, {
    workerData: { file, user: store.user, root, space } satisfies FolderThreadData,
  });
  const waiting = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  const pending = new Set<Promise<unknown>>();
  let next = 0;
  let failed: Error | undefined;
  let closing = false;
  const fail = (error: Error) => {
    failed ??= error;
    for (const w of waiting.values()) w.reject(failed);
    waiting.clear();
  };
  worker.on('message', (reply: FolderReply) => {
    const w = waiting.get(reply.id);
    waiting.delete(reply.id);
    if (!w) return;
    if ('result' in reply) w.resolve(reply.result);
    else {
      const { message, problem, path } = reply.error;
      w.reject(problem ? new StoreError(problem, path ?? file, message) : new Error(message));
    }
  });
  worker.on('error', (error) => fail(new Error(`The thread embedding ${root} failed: ${error.message}`)));
  worker.on('exit', (code) => {
    if (!closing) fail(new Error(`The thread embedding ${root} stopped (exit code ${code}).`));
  });
  const call = <T>(request: FolderOp, transfer: ArrayBuffer[] = []): Promise<T> => {
    if (failed) return Promise.reject(failed);
    const id = next++;
    const reply = new Promise<T>((resolve, reject) => {
      waiting.set(id, { resolve: resolve as (value: unknown) => void, reject });
      worker.postMessage({ ...request, id } satisfies FolderRequest, transfer);
    });
    pending.add(reply);
    const settled = () => pending.delete(reply);
    reply.then(settled, settled);
    return reply;
  };
  const stop = async () => {
    closing = true;
    await worker.terminate();
    fail(new Error(`The thread embedding ${root} was closed.`));
  };
  try {
    await call({ op: 'open' });
  } catch {
    // The file would not open from there (locked, gone): this thread does the work instead.
    await stop();
    return undefined;
  }
  return {
    countMissing: () => call<number>({ op: 'count' }),
    round: (after, size) => call({ op: 'round', after, size }),
    // Quantized here, as the model's numbers come back (they are in the processor's cache then), and
    // moved to the worker a batch in one buffer.
    prepare: (vector) => store.vectors.prepare(vector) as unknown as HeldVector,
    put: async (rows) => {
      if (rows.length === 0) return;
      const { bytes, dims } = joinCompacts(rows.map((r) => r.vector as unknown as Compact));
      await call({ op: 'put', hashes: rows.map((r) => r.hash), bytes, dims }, [bytes.buffer as ArrayBuffer]);
    },
    record: (entry, prices) => call({ op: 'record', entry, prices }),
    async close() {
      // Every request made (the calls' ledger rows last) is answered before the connection closes.
      while (pending.size) await Promise.allSettled([...pending]);
      if (!failed) await call({ op: 'close' }).catch(() => {});
      await stop();
    },
  };
}
