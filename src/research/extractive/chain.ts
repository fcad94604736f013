import { getDocument } from '../documents/index.js';
import type { Retriever } from '../retrieval/retriever.js';
import { noRunUsage } from '../run/usage.js';
import type { ResearchEvent, ResearchOptions, ResearchResult } from '../types.js';

/**
 * A run without a model: the passages of the local documents that best answer the question, quoted.
 * What quotes them (./index.ts) is loaded only when a run needs it.
 */
export async function extractiveChain(
  o: ResearchOptions,
  retriever: Retriever,
  emit: (e: ResearchEvent) => void,
): Promise<Pick<ResearchResult, 'mode' | 'answer' | 'sources' | 'reports' | 'usage'>> {
  emit({ type: 'step', name: 'search' });
  const { extractiveAnswer } = await import('./index.js');
  const { answer, sources } = await extractiveAnswer(o.store, o.contentDir, o.question, {
    search: (query, limit) => retriever.passages(query, limit),
    rankPrior: retriever.usesVectors,
  });
  emit({ type: 'step', name: 'select' });
  // The quoted sentences come from the whole documents: that is the text the grounding check holds them to.
  for (const s of sources)
    if (!s.text && s.slug) s.text = (await getDocument(o.store, o.contentDir, s.slug))?.body ?? '';
  return {
    mode: 'extractive',
    answer: answer || 'No passage in the local documents matches this question.',
    sources,
    reports: sources.map((s) => ({ label: s.slug ?? s.location, status: 'read', n: s.n })),
    usage: noRunUsage(),
  };
}
