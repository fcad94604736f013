import { CITE, claimUnits } from './claims.js';

export interface CitationCheck {
  /** Source numbers the answer cites, in order of first use. */
  cited: number[];
  /** Numbers cited that name no collected source. */
  dangling: number[];
  /** Sentences with a number or a claim and no citation. */
  uncited: string[];
}

/**
 * Every `[n]` must name a collected source; every sentence, list item or table row that states something
 * must carry one (or follow a cited lead-in). A report's "Gaps and caveats" section says what the sources
 * do not settle, so it has nothing to cite; questions and lines that end in a colon state nothing.
 */
export function checkCitations(answer: string, sourceNumbers: number[]): CitationCheck {
  const known = new Set(sourceNumbers);
  const cited: number[] = [];
  const dangling: number[] = [];
  for (const m of answer.matchAll(CITE)) {
    for (const n of m[1]!.split(',').map((x) => Number(x.trim()))) {
      if (!cited.includes(n)) cited.push(n);
      if (!known.has(n) && !dangling.includes(n)) dangling.push(n);
    }
  }
  const uncited = claimUnits(answer)
    .filter(({ text, cites, gaps }) => {
      if (cites.length > 0 || gaps || text.endsWith(':') || text.endsWith('?')) return false;
      const hasNumber = /\d/.test(text);
      const isClaim = text.split(/\s+/).length >= 6;
      return hasNumber || isClaim;
    })
    // As written, list marker included, so that a reader finds it in the answer.
    .map((u) => `${u.marker}${u.text}`);
  return { cited, dangling, uncited };
}
