import { proseSentences } from './text.js';

export interface CitationCheck {
  /** Source numbers the answer cites, in order of first use. */
  cited: number[];
  /** Numbers cited that name no collected source. */
  dangling: number[];
  /** Sentences with a number or a claim and no citation. */
  uncited: string[];
}

const CITE = /\[(\d+(?:\s*,\s*\d+)*)\]/g;
const HAS_CITE = /\[\d+(?:\s*,\s*\d+)*\]/;

/** Every `[n]` must name a collected source; every sentence that states something must carry one. */
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
  const uncited = proseSentences(answer).filter((sentence) => {
    const plain = sentence.replace(/^([-*+]|\d+[.)]|#{1,6})\s+/, '').trim();
    if (HAS_CITE.test(plain)) return false;
    if (plain.endsWith(':') || plain.endsWith('?')) return false;
    const hasNumber = /\d/.test(plain);
    const isClaim = plain.split(/\s+/).length >= 6;
    return hasNumber || isClaim;
  });
  return { cited, dangling, uncited };
}
