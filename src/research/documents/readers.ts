import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { AbortedError } from '../../errors.js';
import { FormatError } from '../../formats/errors.js';
import { workerScript } from '../../worker-script.js';
import { type PreparedFile, prepareFile } from './prepare.js';
import { maxDocumentBytes } from './read.js';
import type { PrepareRequest } from './read-worker.js';

// Who prepares the files to index. Little to read: this thread. Much to read: worker threads, so that
// reading, splitting and compressing the next files runs beside the database writes of the last, and the
// main thread only writes (on 200 KB files, about 30% less of its time; the writes are the rest). The
// workers run the compiled read-worker.js, found from the compiled modules, from the bundle, and from the
// sources (tests) once dist is built; without it, this thread reads.

/** Below this many bytes to read, starting a worker (about 50 ms) costs more than it saves. */
const WORKER_MIN_BYTES = 4 * 2 ** 20;

/** The readers themselves failed (not one file): indexing cannot go on. */
export class ReaderError extends Error {}

export interface FileReader {
  /**
   * Rejects with AbortedError when stopped, ReaderError when the readers failed, and any other error
   * (a FormatError, saying why) when this file cannot be used.
   */
  prepare(path: string, size: number): Promise<PreparedFile>;
  /** How many bytes of files to ask for ahead of the one being written: 0 in this thread. */
  aheadBytes: number;
  close(): void;
}

/** Workers are kept this far ahead of the writes (one file at least). */
const AHEAD_BYTES = 16 * 2 ** 20;

export function fileReader(bytes: number, signal?: AbortSignal): FileReader {
  // A bad AGENT_MAX_DOCUMENT_MB stops indexing at once (ConfigError) instead of skipping every file.
  maxDocumentBytes(process.env);
  const script =
    bytes >= WORKER_MIN_BYTES
      ? workerScript(import.meta.url, 'research/documents', 'read-worker.js')
      : undefined;
  const count = Math.max(1, Math.min(3, availableParallelism() - 1));
  if (!script)
    return { prepare: (path, size) => prepareFile(path, { size, signal }), aheadBytes: 0, close() {} };
  return workerPool(script, count, signal);
}

function workerPool(script: URL, count: number, signal?: AbortSignal): FileReader {
  const waiting = new Map<number, { resolve: (f: PreparedFile) => void; reject: (e: Error) => void }>();
  let next = 0;
  let failed: Error | undefined;
  const failAll = (error: Error) => {
    failed ??= error;
    for (const w of waiting.values()) w.reject(error);
    waiting.clear();
  };
  const workers = Array.from({ length: count }, () => {
    const worker = new Worker(script);
    worker.on('message', (m: { id: number; prepared?: PreparedFile; error?: string }) => {
      const w = waiting.get(m.id);
      waiting.delete(m.id);
      if (!w) return;
      if (m.prepared) {
        // Moved bytes arrive as a plain Uint8Array; the database binds Buffers.
        const blocks = m.prepared.blocks.map(({ start, data }) => ({
          start,
          data: typeof data === 'string' ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength),
        }));
        w.resolve({ ...m.prepared, blocks });
      } else w.reject(new FormatError(m.error));
    });
    worker.on('error', (error) => failAll(new ReaderError(`a document reader failed: ${error.message}`)));
    worker.on('exit', (code) => {
      if (code !== 0) failAll(new ReaderError(`a document reader stopped (exit code ${code})`));
    });
    return worker;
  });
  const stop = () => {
    failAll(new AbortedError());
    for (const w of workers) void w.terminate();
  };
  if (signal?.aborted) stop();
  else signal?.addEventListener('abort', stop, { once: true });
  return {
    aheadBytes: AHEAD_BYTES,
    prepare(path, size) {
      if (failed) return Promise.reject(failed);
      const id = next++;
      return new Promise<PreparedFile>((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        workers[id % workers.length]!.postMessage({ id, path, size } satisfies PrepareRequest);
      });
    },
    close() {
      signal?.removeEventListener('abort', stop);
      for (const w of workers) void w.terminate();
    },
  };
}
