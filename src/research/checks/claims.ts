import { proseSentences } from '../text.js';

// How an answer divides into claims, shared by the citation check, the grounding check and the evidence
// finder, so that all three agree on what a sentence, a list item or a table row is and what it cites.

export interface Claim {
  /** As written, list markers removed, citations kept; a table row as its line. */
  text: string;
  /** Sources it cites, its own or, for an uncited list item or row, those of the line that leads in. */
  cites: number[];
  kind: 'sentence' | 'bullet' | 'row';
}

export interface ClaimUnit extends Claim {
  /** In a report's "Gaps and caveats" section: it says what the sources leave open. */
  gaps: boolean;
  /** The claim cites sources of its own (not only through a lead-in). */
  ownCites: boolean;
  /** The list marker before the first sentence of a list item (`- `, `1. `), as written. */
  marker: string;
}

/** `[1]`, `[1, 3]`: every citation (the numbers in group 1); and whether a text carries one. */
export const CITE = /\[(\d+(?:\s*,\s*\d+)*)\]/g;
export const HAS_CITE = /\[\d+(?:\s*,\s*\d+)*\]/;

/** Every claim that cites at least one source. */
export function citedClaims(answer: string): Claim[] {
  return claimUnits(answer)
    .filter((u) => u.cites.length > 0)
    .map(({ text, cites, kind }) => ({ text, cites, kind }));
}

/** The numbers in a text's `[n]` citations, each once, in order. */
export function citesOf(text: string): number[] {
  return [...new Set([...text.matchAll(CITE)].flatMap((m) => m[1]!.split(',').map((x) => Number(x.trim()))))];
}

const SOURCE_LIST = /^(sources|references|bibliography|works cited)$/i;
const GAPS = /^(gaps|caveats|limitations|open questions)\b/i;
const ITEM = /^(?:>\s*)*(?:[-*+•]\s+|\d+[.)]\s+|\(\d+\)\s+|[a-z][.)]\s+)/;
/** A sentence that is only code and punctuation states nothing a source could hold. */
const CODE_ONLY = /^(?:`[^`]*`[\s.,;:!?]*)+(?:\[\d+(?:\s*,\s*\d+)*\]\s*)*$/;
/** A Markdown table's rule line (`|---|:--:|`). */
export const TABLE_RULE = /^\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?$/;

/**
 * Every claim of an answer: prose sentences, list items (split into sentences) and table rows, outside
 * headings and any "Sources" or "References" section. A table's header row (the row above its `|---|`
 * rule) is not a claim. A lead-in — a line ending in a colon that carries a citation, right before a list
 * or table — lends its citations to each item or row of that list that cites nothing itself.
 */
export function claimUnits(answer: string): ClaimUnit[] {
  const lines = answer.split('\n').map((l) => l.trim());
  const out: ClaimUnit[] = [];
  let inSourceList = false;
  let gapsLevel = 0;
  let leadIn: number[] = [];
  let fence: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    // Code is not a claim: a fenced block, or a line that is only inline code ("`nights = 3`").
    const f = /^(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence || f) {
      if (!fence) fence = f;
      else if (f && f[0] === fence[0] && f.length >= fence.length) fence = undefined;
      continue;
    }
    if (!line || /^(?:[-*+]\s+)?(?:`[^`]*`[\s.,;:]*)+$/.test(line)) continue;
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    const label = !heading && !HAS_CITE.test(line) && /^(\*\*[^*]+\*\*:?|\w[\w ]*:)$/.test(line);
    if (heading || label) {
      const name = (heading?.[2] ?? line).replace(/[*_:]/g, '').trim();
      inSourceList = SOURCE_LIST.test(name);
      const level = heading ? heading[1]!.length : 7;
      if (gapsLevel && level <= gapsLevel) gapsLevel = 0;
      if (heading && GAPS.test(name)) gapsLevel = level;
      leadIn = [];
      // A heading is a title; one that cites a source is checked like a sentence.
      if (heading && HAS_CITE.test(line))
        out.push(unit(heading[2]!.replace(/^\d+(?:\.\d+)*\.?\s+/, ''), 'sentence', [], gapsLevel > 0));
      continue;
    }
    if (inSourceList || /^(sources|references):/i.test(line)) continue;
    if (line.startsWith('|')) {
      if (TABLE_RULE.test(line)) continue;
      if (TABLE_RULE.test(lines[i + 1] ?? '')) continue; // the header row
      out.push(unit(line, 'row', leadIn, gapsLevel > 0));
      continue;
    }
    const item = ITEM.exec(line);
    if (item) {
      // A list item is one unit: a citation at its end covers its earlier sentences too (a quoted
      // step "4. If … request approval. Do not promise it … [3]").
      const parts = proseSentences(line.slice(item[0].length)).filter((s) => !CODE_ONLY.test(s));
      const itemCites = citesOf(parts.at(-1) ?? '');
      parts.forEach((s, k) => {
        const inherited = itemCites.length && !HAS_CITE.test(s) ? itemCites : leadIn;
        out.push({ ...unit(s, 'bullet', inherited, gapsLevel > 0), marker: k === 0 ? item[0] : '' });
      });
      continue;
    }
    leadIn = [];
    const sentences = proseSentences(line).filter((s) => !CODE_ONLY.test(s));
    for (const s of sentences) out.push(unit(s, 'sentence', [], gapsLevel > 0));
    const last = sentences.at(-1) ?? '';
    if (/:\s*(?:\[\d+(?:\s*,\s*\d+)*\]\s*)*$/.test(last) && HAS_CITE.test(last)) leadIn = citesOf(last);
  }
  return out;
}

function unit(text: string, kind: Claim['kind'], leadIn: number[], gaps: boolean): ClaimUnit {
  const own = citesOf(text);
  return { text, cites: own.length ? own : leadIn, kind, gaps, ownCites: own.length > 0, marker: '' };
}
