import { errorMessage } from '../../errors.js';
import type { Store } from '../../store/store.js';
import { resultJson } from '../result-json.js';
import type { ResearchEvent, ResearchResult } from '../types.js';

/**
 * Keeps a run that answered (completing its unfinished row, when it has one); a failure to keep it is a
 * notice, since the answer is already shown.
 */
export async function saveRun(
  store: Store,
  result: ResearchResult,
  emit: (e: ResearchEvent) => void,
  id?: number,
): Promise<void> {
  try {
    result.id = await store.runs.save({
      id,
      question: result.question,
      mode: result.mode,
      answer: result.answer,
      costUsd: result.usage.costUsd,
      result: resultJson(result),
      createdAt: Date.parse(result.createdAt),
      // The texts the evidence was found in, so it can be shown again after a page changes.
      texts: result.sources.map((s) => ({ n: s.n, text: s.text })),
    });
  } catch (error) {
    emit({ type: 'notice', message: `This run could not be saved: ${errorMessage(error)}` });
  }
}
