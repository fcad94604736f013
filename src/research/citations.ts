import { proseSentences } from './text.js';

export interface CitationCheck {
  /** Source numbers the answer cites, in order of first use. */
  cited: number[];
  /** Numbers cited that name no collected source. */
  dangling: number[];
  /** Sentences with a number or a claim and no citation. */
  uncited: string[];
}

/** `[1]`, `[1, 3]`: every citation (the numbers in group 1); and whether a text carries one. */
export const CITE = /\[(\d+(?:\s*,\s*\d+)*)\]/g;
export const HAS_CITE = /\[\d+(?:\s*,\s*\d+)*\]/;

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
  const uncited = proseSentences(claimLines(answer)).filter((sentence) => {
    const plain = sentence.replace(/^([-*+]|\d+[.)]|#{1,6})\s+/, '').trim();
    if (HAS_CITE.test(plain)) return false;
    if (plain.endsWith(':') || plain.endsWith('?')) return false;
    const hasNumber = /\d/.test(plain);
    const isClaim = plain.split(/\s+/).length >= 6;
    return hasNumber || isClaim;
  });
  return { cited, dangling, uncited };
}

/**
 * The lines that make claims: headings are titles, not statements, and a report's "Gaps and caveats"
 * section says what the sources do not settle, so it has nothing to cite.
 */
function claimLines(answer: string): string {
  const out: string[] = [];
  let skipUntil = 0; // inside a gaps section: until a heading of this level or higher
  for (const line of answer.split('\n')) {
    const heading = /^(#{1,6})\s+(.*)$/.exec(line.trim());
    if (heading) {
      const level = heading[1]!.length;
      if (skipUntil && level <= skipUntil) skipUntil = 0;
      if (/^(gaps|caveats|limitations|open questions)\b/i.test(heading[2]!)) skipUntil = level;
      continue;
    }
    if (!skipUntil) out.push(line);
  }
  return out.join('\n');
}
