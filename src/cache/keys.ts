import type { ExtractionKey } from '../store/store.js';
import { textHash } from '../store/texts.js';

// What a cached entry is found by.

/** A page is cached under the URL asked for, as a URL parser writes it, without its fragment (never sent). */
export function pageKey(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    parsed.hash = '';
    return parsed.href;
  } catch {
    return undefined;
  }
}

/** The question as the key holds it: trimmed, each run of white space one space; case as written. */
export const normaliseQuestion = (question: string): string => question.trim().replace(/\s+/g, ' ');

/**
 * An extraction's key: the source as the prompt gives it (title, location, how it was read, text), the
 * question, the model and the version of the extraction prompt.
 */
export function extractionKey(
  source: string,
  question: string,
  model: string,
  promptVersion: number,
): ExtractionKey {
  return { sourceHash: textHash(source), question: normaliseQuestion(question), model, promptVersion };
}
