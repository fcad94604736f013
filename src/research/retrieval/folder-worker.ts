import { parentPort, workerData } from 'node:worker_threads';
import type { PriceTable } from '../../providers/prices.js';
import { StoreError } from '../../store/errors.js';
import { openStore } from '../../store/open.js';
import type { Store } from '../../store/store.js';
import type { LedgerEntry } from '../../store/types.js';
import { splitCompacts } from '../../store/vectors.js';
import { type FolderIO, type HeldVector, localFolder } from './folder-io.js';

// A worker thread doing a folder's embedding reads and writes (folder-thread.ts) on a connection of its
// own to the same SQLite file: one message per request, answered with its result or why it failed.

export interface FolderThreadData {
  file: string;
  user: string;
  root: string;
  space: string;
}

export type FolderOp =
  | { op: 'open' | 'count' | 'close' }
  | { op: 'round'; after: number; size: number }
  | { op: 'put'; hashes: string[]; bytes: Uint8Array; dims: Uint16Array }
  | { op: 'record'; entry: LedgerEntry; prices?: PriceTable };

export type FolderRequest = FolderOp & { id: number };

export type FolderReply =
  | { id: number; result: unknown }
  | { id: number; error: { message: string; problem?: StoreError['problem']; path?: string } };

const { file, user, root, space } = workerData as FolderThreadData;
let store: Store | undefined;
let io: FolderIO | undefined;

async function answer(request: FolderRequest): Promise<unknown> {
  if (request.op === 'open') {
    // Migrated by the thread that started this one; the person its rows are recorded for is that one's.
    store = await openStore(file, { migrate: false, env: { ...process.env, AGENT_USER: user } });
    io = localFolder(store, root, space);
    return undefined;
  }
  if (!io || !store) throw new Error('the folder was not opened');
  switch (request.op) {
    case 'count':
      return io.countMissing();
    case 'round':
      return io.round(request.after, request.size);
    case 'put': {
      const vectors = splitCompacts(request.bytes, request.dims);
      // Already in the store's form (the other thread's SqliteVectors.prepare).
      return io.put(request.hashes.map((hash, i) => ({ hash, vector: vectors[i] as unknown as HeldVector })));
    }
    case 'record':
      return io.record(request.entry, request.prices);
    case 'close':
      await store.close();
      store = undefined;
      io = undefined;
      return undefined;
  }
}

parentPort?.on('message', async (request: FolderRequest) => {
  try {
    const result = await answer(request);
    parentPort!.postMessage({ id: request.id, result } satisfies FolderReply);
  } catch (error) {
    const e = error instanceof Error ? error : new Error(String(error));
    parentPort!.postMessage({
      id: request.id,
      error: {
        message: e.message,
        ...(e instanceof StoreError ? { problem: e.problem, path: e.path } : {}),
      },
    } satisfies FolderReply);
  }
});
