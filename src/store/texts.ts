import { createHash } from 'node:crypto';
import { deflateSync, inflateSync } from 'node:zlib';
import type { PassageHit, PassageSpanHit } from './store.js';

// How texts are kept once wherever they are stored (run texts, cached pages), by either database.

/** A text's key wherever texts are stored once: the SHA-256 of its UTF-8, hex. */
export const textHash = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/** A text as stored: UTF-8, deflated with zlib. */
export const deflateText = (text: string): Buffer => deflateSync(Buffer.from(text, 'utf8'));

/** A stored text from its compressed body. */
export const inflateText = (body: Buffer): string => inflateSync(body).toString('utf8');

/** A passage found as a span, with its text: what it is, not where its text is kept. */
export const passageHit = (
  { documentId: _, start: __, end: ___, ...hit }: PassageSpanHit,
  text: string,
): PassageHit => ({
  ...hit,
  text,
});

/** Passages found as spans, with their texts: read together (a team database reads them in two statements). */
export function withTexts(
  hits: PassageSpanHit[],
  read: (documentId: number, start: number, end: number) => Promise<string>,
): Promise<PassageHit[]> {
  return Promise.all(hits.map(async (h) => passageHit(h, await read(h.documentId, h.start, h.end))));
}
