import type { Fact } from './fact.js';

// Centuries and decades, as the span of years they are: "the 12th century" (1100–1200, its edges
// either way of counting), "the thirteenth century", "mid-19th century" (1830–1870), "early 20th
// century", "the 1850s" (1850–1859). An answer's era holds against any year of a source inside it, and a
// source's era against the same era or one holding its middle ("the 1850s" holds "mid-19th century"); a
// stated year is never held by an era (1163 says more than "the 12th century").
// Out of scope: BC/BCE, "the '90s", millennia.

const ORDINAL_WORDS =
  'first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth twentieth'.split(
    ' ',
  );
const CENTURY = new RegExp(
  String.raw`\b(?:(early|mid|late)[\s-]+)?(?:(\d{1,2})(?:st|nd|rd|th)|(twenty[\s-]first|${ORDINAL_WORDS.join('|')}))[\s-]+century\b`,
  'gi',
);
/** The years of a century an early, mid or late one spans. */
const PARTS: Record<string, [number, number]> = { early: [0, 35], mid: [30, 70], late: [65, 100] };
const DECADE = /(?<![\p{L}\p{N}\-‐–.,])((?:1[5-9]|20)\d0)s\b/gu;

export function readEras(text: string): { facts: Fact[]; text: string } {
  if (!text.includes('entury') && !text.includes('ENTURY') && !(text.includes('0s') && /\d0s\b/.test(text)))
    return { facts: [], text };
  const facts: Fact[] = [];
  const blank = (raw: string) => ' '.repeat(raw.length);
  const out = text
    .replace(
      CENTURY,
      (raw, part: string | undefined, digits: string | undefined, word: string | undefined) => {
        const n = digits
          ? Number(digits)
          : /^twenty/i.test(word!)
            ? 21
            : ORDINAL_WORDS.indexOf(word!.toLowerCase()) + 1;
        if (n < 1 || n > 21) return raw;
        const start = (n - 1) * 100;
        const [from, to] = PARTS[part?.toLowerCase() ?? ''] ?? [0, 100];
        facts.push(era(raw, start + from, start + to));
        return blank(raw);
      },
    )
    .replace(DECADE, (raw, year: string) => {
      facts.push(era(raw, Number(year), Number(year) + 9));
      return blank(raw);
    });
  return { facts, text: out };
}

function era(raw: string, from: number, to: number): Fact {
  const key = `era:${from}-${to}`;
  const half = (to - from) / 2;
  return {
    kind: 'period',
    raw,
    gives: [key],
    needs: [key],
    near: [{ dim: 'b', value: from + half, cls: '', below: half, above: half, approx: true }],
  };
}
