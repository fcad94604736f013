import type { Line } from './layout.js';

// Messages between a reading and a reading worker. `id` names the document, so a page that arrives after
// its read has ended is not taken for a page of the next one.

export type ToWorker =
  | { type: 'open'; id: number; data: Uint8Array; bold?: boolean }
  | { type: 'read'; pages: number[] }
  | { type: 'close' };

export type FromWorker =
  | { type: 'ready'; id: number }
  | { type: 'page'; id: number; n: number; lines: Line[] }
  | { type: 'failed'; id: number; message: string };
