import { AbortedError } from '../../errors.js';
import { refreshIndex } from '../documents/index.js';
import { Retriever } from '../retrieval/retriever.js';
import { DEFAULT_CONCURRENCY } from '../run-context.js';
import type { ResearchEvent, ResearchOptions } from '../types.js';
import type { Purse } from './purse.js';

// What a run does before its first model request: the content folder's index brought up to date, and the
// retrieval that reads it (with the question's and the new passages' embeddings, when it uses vectors).

/** Brings the document index up to date, saying what could not be read. */
export async function indexStep(
  o: Pick<ResearchOptions, 'store' | 'contentDir' | 'signal'>,
  emit: (e: ResearchEvent) => void,
): Promise<void> {
  emit({ type: 'step', name: 'index' });
  const stats = await refreshIndex(o.store, o.contentDir, {
    signal: o.signal,
    onNotice: (message) => emit({ type: 'notice', message }),
  });
  const { skipped } = stats;
  for (const s of skipped) emit({ type: 'notice', message: `Skipped ${s.path}: ${s.reason}` });
  if (stats.added + stats.updated + stats.unchanged === 0 && o.store.readOnly)
    emit({
      type: 'notice',
      message: `The read-only database holds no index of ${o.contentDir}, and cannot make one: its documents are not searched.`,
    });
  else if (stats.added + stats.updated + stats.unchanged === 0)
    emit({
      type: 'notice',
      message: `The content folder ${o.contentDir} holds no ${skipped.length ? 'readable ' : ''}documents (.md, .markdown, .txt, .html, .htm, .docx, .pdf).`,
    });
  if (o.signal?.aborted) throw new AbortedError();
}

/**
 * Embeds the question and the passages that have no vector of the model yet (hybrid and semantic
 * retrieval); a terminal shows the count as it goes. A fault falls back to BM25 (the retriever says so).
 */
export async function embedStep(retriever: Retriever, question: string, emit: (e: ResearchEvent) => void) {
  if (!retriever.usesVectors) return;
  let shown = false;
  await retriever.prepare(question, (done, total) => {
    if (!shown) emit({ type: 'step', name: 'embed' });
    shown = true;
    emit({ type: 'progress', done, total });
  });
}

/** How the run searches the local documents (`--retrieval`; BM25 when not set up). */
export function retrieverFor(
  o: ResearchOptions,
  runId: string,
  emit: (e: ResearchEvent) => void,
  purse?: Purse,
) {
  return new Retriever(o.retrieval ?? { mode: 'bm25' }, {
    store: o.store,
    root: o.contentDir,
    runId,
    userPrices: o.userPrices,
    signal: o.signal,
    emit,
    purse,
    concurrency: o.concurrency ?? DEFAULT_CONCURRENCY,
  });
}
