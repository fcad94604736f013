import { getCachedExtraction, putCachedExtraction } from '../store/cache.js';
import type { Db } from '../store/open.js';
import { extractionKey } from './keys.js';

// The facts an extraction call gave, kept by (source, question, model, prompt version), so re-running a
// question, or a deeper run over the same sources, does not pay for them again. Like the page cache it
// is a help only: a lookup that fails is a miss, a write that fails is skipped.

export interface ExtractionCache {
  /** The facts stored for this source (as the extraction prompt gives it), if any. */
  get(source: string): string | undefined;
  /** Keeps the facts of a successful extraction. */
  put(source: string, facts: string): void;
}

export interface ExtractionCacheOptions {
  question: string;
  model: string;
  promptVersion: number;
  /** --refresh: look nothing up this time (what is extracted is still stored). */
  refresh?: boolean;
  now?: () => number;
}

export function extractionCache(db: Db, o: ExtractionCacheOptions): ExtractionCache {
  const key = (source: string) => extractionKey(source, o.question, o.model, o.promptVersion);
  return {
    get(source) {
      if (o.refresh) return undefined;
      try {
        const facts = getCachedExtraction(db, key(source));
        return typeof facts === 'string' && facts.trim() ? facts : undefined;
      } catch {
        return undefined;
      }
    },
    put(source, facts) {
      try {
        putCachedExtraction(db, key(source), facts, (o.now ?? Date.now)());
      } catch {}
    },
  };
}
