import { statSync } from 'node:fs';
import type { Store } from '../../store/store.js';
import { prepareFile } from './prepare.js';
import { readDocumentFile } from './read.js';

// On a team database every member can write the document index, so a stored text may say what its file
// does not (a planted "$900" where the file says "$200"). The file is the truth wherever it can be read:
// before a document's stored text reaches a model, an answer or the grounding check, it is compared with
// the file read afresh, and the file's text is used when they differ. A personal SQLite file is written
// only by its owner's agent, which re-reads a changed file by itself: it is trusted as it is.

/**
 * Documents already compared in this process (a run asks more than once, a worker for every question):
 * the text found true, the file's where they differed. The most recent are kept, up to MAX_CHARS.
 */
const compared = new Map<string, { text: string; fromFile: boolean }>();
const MAX_CHARS = 8_000_000;
let keptChars = 0;

function remember(key: string, found: { text: string; fromFile: boolean }) {
  compared.set(key, found);
  keptChars += found.text.length;
  for (const [oldest, { text }] of compared) {
    if (keptChars <= MAX_CHARS || oldest === key) break;
    compared.delete(oldest);
    keptChars -= text.length;
  }
}

/**
 * The text to use for a document: the file's (`fromFile`) when it differs from what the index stores,
 * else the stored text (so the caller need not fetch it again); a document compared before in this
 * process gives what was found then. Undefined when the index may be used as it is: on SQLite, and for a
 * file that cannot be read now. A document found changed is indexed again from its file at once (best
 * effort: the file's text is used anyway).
 */
export async function trustedText(
  store: Store,
  root: string,
  doc: { id: number; slug: string; path: string; length?: number },
): Promise<{ text: string; fromFile: boolean } | undefined> {
  if (store.kind !== 'postgres') return undefined;
  // The file's time and size in the key: a file edited since (to the same length, "$200" to "$300") is
  // compared again, however long this process (a worker) has run.
  let stat: { mtimeMs: number; size: number };
  try {
    stat = statSync(doc.path);
  } catch {
    return undefined;
  }
  const key = `${doc.id}:${doc.path}:${doc.length ?? ''}:${stat.mtimeMs}:${stat.size}`;
  const known = compared.get(key);
  if (known) {
    // The most recently used last, so that the oldest go first.
    compared.delete(key);
    compared.set(key, known);
    return known;
  }
  let fromFile: string;
  try {
    fromFile = (await readDocumentFile(doc.path)).text;
  } catch {
    // Gone, unreadable or no longer a document: the index is all there is (the next walk says why).
    return undefined;
  }
  const stored = await store.index.text(doc.id);
  if (stored === fromFile) {
    remember(key, { text: stored, fromFile: false });
    return { text: stored, fromFile: false };
  }
  remember(key, { text: fromFile, fromFile: true });
  await reindex(store, root, doc).catch(() => undefined);
  return { text: fromFile, fromFile: true };
}

/** The document written again from its file, in place of the stored one. */
async function reindex(store: Store, root: string, doc: { id: number; slug: string; path: string }) {
  const stat = statSync(doc.path);
  const p = await prepareFile(doc.path, { size: stat.size });
  await store.index.write(
    root,
    [
      {
        slug: doc.slug,
        path: doc.path,
        title: p.title,
        mtimeMs: stat.mtimeMs,
        size: stat.size,
        chars: p.chars,
        blocks: p.blocks,
        spans: p.spans,
        texts: p.texts,
      },
    ],
    [doc.id],
  );
}
