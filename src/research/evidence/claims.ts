import { CITE, HAS_CITE } from '../citations.js';
import { proseSentences } from '../text.js';

// The answer's cited claims: every sentence, list item or table row that carries `[n]`. A stand-in with
// the signature the reworked citation check will export (see issue 13 §1); swap it for that one once
// merged, nothing else here depends on how it splits.

export interface CitedClaim {
  /** The claim as written, citations included. */
  text: string;
  /** The source numbers it cites, in order, each once. */
  cites: number[];
  kind: 'sentence' | 'bullet' | 'row';
}

const LIST_ITEM = /^\s*(?:[-*+]|\d+[.)]|\(\d+\))\s+/;
const TABLE_RULE = /^\s*\|?\s*:?-{3,}/;

export function citedClaims(answer: string): CitedClaim[] {
  const out: CitedClaim[] = [];
  const lines = answer.split('\n');
  const add = (text: string, kind: CitedClaim['kind']) => {
    const cites: number[] = [];
    for (const m of text.matchAll(CITE))
      for (const n of m[1]!.split(',').map((x) => Number(x.trim()))) if (!cites.includes(n)) cites.push(n);
    if (cites.length) out.push({ text: text.trim(), cites, kind });
  };
  let inFence = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
    if (inFence || /^\s*#{1,6}\s/.test(line) || !HAS_CITE.test(line)) continue;
    if (line.trim().startsWith('|')) {
      // A header row (the one above the rule) names columns; it is not a claim.
      if (!TABLE_RULE.test(line) && !TABLE_RULE.test(lines[i + 1] ?? '')) add(line, 'row');
      continue;
    }
    const item = LIST_ITEM.exec(line);
    const body = item ? line.slice(item[0].length) : line;
    for (const sentence of proseSentences(body)) add(sentence, item ? 'bullet' : 'sentence');
  }
  return out;
}
