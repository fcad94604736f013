import { parentPort } from 'node:worker_threads';
import { prepareFile } from './prepare.js';

// A worker thread preparing files for the indexer (readers.ts): one message per file, answered with the
// prepared file (its compressed blocks moved, not copied) or with why it cannot be used.

export interface PrepareRequest {
  id: number;
  path: string;
  size: number;
}

parentPort?.on('message', async ({ id, path, size }: PrepareRequest) => {
  try {
    const prepared = await prepareFile(path, { size });
    // Each block in an ArrayBuffer of its own (zlib's may be shared), so that it can be moved.
    const blocks = prepared.blocks.map((b) => ({
      start: b.start,
      data: typeof b.data === 'string' ? b.data : new Uint8Array(b.data),
    }));
    parentPort!.postMessage(
      { id, prepared: { ...prepared, blocks } },
      blocks.flatMap((b) => (typeof b.data === 'string' ? [] : [b.data.buffer])),
    );
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    parentPort!.postMessage({ id, error: message });
  }
});
