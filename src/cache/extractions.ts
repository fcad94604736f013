import type { CacheStore } from '../store/store.js';
import { extractionKey } from './keys.js';

// The facts an extraction call gave, kept by (source, question, model, prompt version), so re-running a
// question, or a deeper run over the same sources, does not pay for them again. Like the page cache it
// is a help only: a lookup that fails is a miss, a write that fails is skipped.

export interface ExtractionCache {
  /** The facts stored for this source (as the extraction prompt gives it), if any. */
  get(source: string): Promise<string | undefined>;
  /** Keeps the facts of a successful extraction. */
  put(source: string, facts: string): Promise<void>;
}

export interface ExtractionCacheOptions {
  question: string;
  model: string;
  promptVersion: number;
  /** --refresh: look nothing up this time (what is extracted is still stored). */
  refresh?: boolean;
  now?: () => number;
}

export function extractionCache(cache: CacheStore, o: ExtractionCacheOptions): ExtractionCache {
  const key = (source: string) => extractionKey(source, o.question, o.model, o.promptVersion);
  return {
    async get(source) {
      if (o.refresh) return undefined;
      try {
        const facts = await cache.getExtraction(key(source));
        return typeof facts === 'string' && facts.trim() ? facts : undefined;
      } catch {
        return undefined;
      }
    },
    async put(source, facts) {
      try {
        await cache.putExtraction(key(source), facts, (o.now ?? Date.now)());
      } catch {}
    },
  };
}
