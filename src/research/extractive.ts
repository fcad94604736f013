import type { Db } from '../store/open.js';
import { type PassageHit, queryTerms, searchPassages } from './documents.js';
import type { Source } from './sources.js';
import { markdownSentences, stem, words } from './text.js';

// The no-key answer: full-text search over every document's passages picks the best passages (so a fact
// deep in a long document is found), then the sentences in them that share the most (and the rarest)
// words with the question are quoted, each with its citation.

export interface ExtractiveAnswer {
  answer: string;
  sources: Source[];
}

interface Candidate {
  text: string;
  doc: number;
  stems: Set<string>;
}

const QUANTITY =
  /\b(how (much|many|long|often|soon)|limit|maximum|minimum|cost|price|amount|days?|hours?|weeks?|when|deadline|percent)\b/i;

export function extractiveAnswer(
  db: Db,
  root: string,
  question: string,
  options: { documents?: number; passages?: number; sentences?: number } = {},
): ExtractiveAnswer {
  // The best passages, from at most `documents` documents, numbered by the rank of their document's best.
  const hits: PassageHit[] = [];
  const candidates: Candidate[] = [];
  for (const passage of searchPassages(db, root, question, options.passages ?? 16)) {
    let doc = hits.findIndex((h) => h.slug === passage.slug);
    if (doc < 0) {
      if (hits.length >= (options.documents ?? 4)) continue;
      doc = hits.push(passage) - 1;
    }
    for (const text of markdownSentences(passage.text))
      candidates.push({ text, doc, stems: new Set(words(text).map(stem)) });
  }
  const terms = [...new Set(queryTerms(question).map(stem))];
  if (terms.length === 0 || candidates.length === 0) return { answer: '', sources: [] };

  // Rarer words say more: weight each term by its inverse frequency among the candidate sentences.
  const idf = new Map(
    terms.map((t) => {
      const df = candidates.filter((c) => c.stems.has(t)).length;
      return [t, Math.log(1 + candidates.length / (df + 0.5))];
    }),
  );
  const wantsQuantity = QUANTITY.test(question);
  const maxIdf = Math.max(...idf.values());
  const amounts = dollarAmounts(question);
  const scored = candidates
    .map((c) => {
      let score = 0;
      for (const t of terms) if (c.stems.has(t)) score += idf.get(t)!;
      if (wantsQuantity && /[$€£]\s?\d|\d+\s?(%|days?|hours?|weeks?|months?|years?|km)/i.test(c.text))
        score *= 1.3;
      // A sentence whose band ("$5,000 to $50,000") contains the amount asked about answers it, whatever its words.
      if (amounts.some((a) => coversAmount(c.text, a))) score += maxIdf * 1.5;
      score *= 1 - 0.08 * c.doc; // the search's own ranking of the documents
      const length = words(c.text).length;
      score /= 1 + Math.max(0, length - 30) * 0.02; // prefer the sentence that says it, not a paragraph around it
      return { ...c, score };
    })
    .filter((c) => c.score > 0)
    .sort((a, b) => b.score - a.score);
  const best = scored[0]?.score ?? 0;
  const chosen: typeof scored = [];
  for (const c of scored) {
    if (chosen.length >= (options.sentences ?? 4) || c.score < best * 0.55) break;
    if (chosen.some((x) => x.text === c.text)) continue;
    chosen.push(c);
  }

  // Sources are numbered in the order the answer first cites them.
  const sources: Source[] = [];
  const numberOf = new Map<number, number>();
  const lines = chosen.map((c) => {
    if (!numberOf.has(c.doc)) {
      const hit = hits[c.doc]!;
      sources.push({
        n: sources.length + 1,
        kind: 'document',
        title: hit.title,
        location: hit.path,
        slug: hit.slug,
        text: '',
        status: 'read',
      });
      numberOf.set(c.doc, sources.length);
    }
    return `- ${c.text} [${numberOf.get(c.doc)}]`;
  });
  return { answer: lines.join('\n'), sources };
}

function dollarAmounts(text: string): number[] {
  return [...text.matchAll(/\$\s?(\d[\d,]*(?:\.\d+)?)\s*(k|thousand)?/gi)].map(
    (m) => Number(m[1]!.replace(/,/g, '')) * (m[2] ? 1000 : 1),
  );
}

/** "$5,000 to $50,000", "up to $500", "above $50,000": does the sentence's band contain the amount? */
export function coversAmount(sentence: string, amount: number): boolean {
  const n = (s: string) => Number(s.replace(/,/g, ''));
  const range = /\$(\d[\d,]*)\s*(?:to|-|–)\s*\$(\d[\d,]*)/i.exec(sentence);
  if (range) return amount >= n(range[1]!) && amount <= n(range[2]!);
  const upTo = /\b(?:up to|below|under|less than)\s*\$(\d[\d,]*)/i.exec(sentence);
  if (upTo) return amount <= n(upTo[1]!);
  const above = /\b(?:above|over|more than|exceeding)\s*\$(\d[\d,]*)/i.exec(sentence);
  if (above) return amount > n(above[1]!);
  return false;
}
