import { statSync } from 'node:fs';
import type { Store } from '../../store/store.js';
import { prepareFile } from './prepare.js';
import { readDocumentFile } from './read.js';

// On a team database every member can write the document index, so a stored text may say what its file
// does not (a planted "$900" where the file says "$200"). The file is the truth wherever it can be read:
// before a document's stored text reaches a model, an answer or the grounding check, it is compared with
// the file read afresh, and the file's text is used when they differ. A personal SQLite file is written
// only by its owner's agent, which re-reads a changed file by itself: it is trusted as it is.

/** Texts already compared in this process, by document id and stored length (a run asks more than once). */
const compared = new Map<string, string | undefined>();

/**
 * The file's text when it differs from what the index stores for the document, else undefined (the
 * index may be used): on SQLite, for a file that cannot be read now, and for one that says the same. A
 * document found changed is indexed again from its file at once (best effort: the text is used anyway).
 */
export async function fileTextIfChanged(
  store: Store,
  root: string,
  doc: { id: number; slug: string; path: string; length?: number },
): Promise<string | undefined> {
  if (store.kind !== 'postgres') return undefined;
  const key = `${doc.id}:${doc.path}:${doc.length ?? ''}`;
  if (compared.has(key)) return compared.get(key);
  let fromFile: string | undefined;
  try {
    fromFile = (await readDocumentFile(doc.path)).text;
  } catch {
    // Gone, unreadable or no longer a document: the index is all there is (the next walk says why).
    fromFile = undefined;
  }
  const stored = fromFile === undefined ? undefined : await store.index.text(doc.id);
  const changed = fromFile !== undefined && stored !== fromFile ? fromFile : undefined;
  compared.set(key, changed);
  if (changed !== undefined) await reindex(store, root, doc).catch(() => undefined);
  return changed;
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
