// Words as the author wrote them: ligature characters spelled out, dot leaders shortened, and words
// hyphenated at a line end joined again when the joined form is a word.

const LIGATURES: Record<string, string> = {
  ﬀ: 'ff',
  ﬁ: 'fi',
  ﬂ: 'fl',
  ﬃ: 'ffi',
  ﬄ: 'ffl',
  ﬅ: 'st',
  ﬆ: 'st',
};
const LIGATURE = /[\ufb00-\ufb06]/g;
const LEADER = /(?:\s?[.·…]){4,}\s?/g;

/** Ligatures expanded, and a table of contents' dot leaders (". . . . .") cut to " … ". */
export function cleanLine(text: string): string {
  return text.replace(LIGATURE, (l) => LIGATURES[l] ?? l).replace(LEADER, ' … ');
}

const WORD = /\p{L}+(?:-\p{L}+)*/gu;

/** The words of a text, lower-cased: hyphenated compounds both whole and as their parts. */
export function vocabulary(texts: Iterable<string>): Set<string> {
  const words = new Set<string>();
  for (const text of texts)
    for (const [w] of text.matchAll(WORD)) {
      const lower = w.toLowerCase();
      words.add(lower);
      if (lower.includes('-')) for (const part of lower.split('-')) words.add(part);
    }
  return words;
}

// A line ending in a word broken with a hyphen, and the next line starting with its lower-case rest.
const BROKEN_END = /(\p{L}+)-$/u;
const LONGEST_WORD = 64;
const REST = /^(\p{Ll}+)([^\s]*)\s?/u;

/**
 * Joins words broken across lines. The document's own words decide: "re-" + "usable" becomes "reusable"
 * when "reusable" occurs elsewhere, and stays "re-usable" when that form does. Otherwise a break
 * between two words the document uses on their own ("well-" + "known") is a real compound hyphen and
 * is kept; any other break is taken for typesetting and joined.
 */
export function joinHyphenated(lines: string[], words: Set<string>): string[] {
  const out = lines.slice();
  for (let i = 0; i + 1 < out.length; i++) {
    if (!out[i]!.endsWith('-')) continue;
    // The last word only: the pattern tried at every start of a long line costs more than all the rest.
    const end = BROKEN_END.exec(out[i]!.slice(-LONGEST_WORD));
    const rest = end && REST.exec(out[i + 1]!);
    if (!end || !rest) continue;
    const head = end[1]!.toLowerCase();
    const tail = rest[1]!;
    const joined = head + tail;
    const keep = !words.has(joined) && (words.has(`${head}-${tail}`) || (words.has(head) && words.has(tail)));
    out[i] = `${out[i]!.slice(0, keep ? undefined : -1)}${rest[1]}${rest[2]}`;
    out[i + 1] = out[i + 1]!.slice(rest[0].length);
  }
  return out;
}
