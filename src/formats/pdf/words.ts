import { readFileSync } from 'node:fs';

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
// Leaders, and the gap (a tab between cells) after them: "Introduction . . . . 3".
const LEADER = /(?:\s?[.·…]){4,}\s*/g;

/** Ligatures expanded, and a table of contents' dot leaders (". . . . .") cut to " … ". */
export function cleanLine(text: string): string {
  return text.replace(LIGATURE, (l) => LIGATURES[l] ?? l).replace(LEADER, ' … ');
}

const WORD = /\p{L}+(?:-\p{L}+)*/gu;
// A line ending in a word broken with a hyphen (or a soft hyphen), and the next line starting with its
// lower-case rest.
const BROKEN_END = /(\p{L}+)([-\u00ad\u2010])$/u;
const LONGEST_WORD = 64;
const REST = /^(\p{Ll}+)(\S*)\s?/u;

/**
 * The words of a text, lower-cased, with how often each occurs: hyphenated compounds both whole and as
 * their parts. The pieces of a word broken at a line end are not words: the halves of "improv-" / "ing"
 * must not vouch for each other.
 */
export function vocabulary(lines: readonly string[]): Map<string, number> {
  const words = new Map<string, number>();
  const add = (w: string) => words.set(w, (words.get(w) ?? 0) + 1);
  let skipFirst = false;
  for (const line of lines) {
    const matches = [...line.matchAll(WORD)];
    const broken = BROKEN_END.test(line.slice(-LONGEST_WORD));
    for (const [i, [w]] of matches.entries()) {
      if ((i === 0 && skipFirst) || (i === matches.length - 1 && broken)) continue;
      const lower = w.toLowerCase();
      add(lower);
      if (lower.includes('-')) for (const part of lower.split('-')) add(part);
    }
    skipFirst = broken;
  }
  return words;
}

/** A word list to ask when the document does not say: lower-case words, or nothing; read when first asked. */
export type Dictionary = () => ReadonlySet<string> | undefined;

let system: Set<string> | null | undefined;
/** The system's word list (Debian's wamerican or wbritish) when it has one; reading works without it. */
export const systemDictionary: Dictionary = () => {
  if (system === undefined) {
    try {
      system = new Set(readFileSync('/usr/share/dict/words', 'utf8').toLowerCase().split('\n'));
    } catch {
      system = null;
    }
  }
  return system ?? undefined;
};

/**
 * Whether a word broken as `head`-`tail` keeps its hyphen. The document's own words decide first:
 * "re-" + "usable" becomes "reusable" when "reusable" occurs elsewhere, and stays "re-usable" when that
 * form does. Then the word list, when there is one. Otherwise a break between two words the document
 * uses on their own, each of three letters or more ("well-" + "known"), is a compound's own hyphen;
 * any other break is typesetting.
 */
export function keepsHyphen(
  head: string,
  tail: string,
  words: Map<string, number>,
  dict?: Dictionary,
): boolean {
  const joined = head + tail;
  const together = words.get(joined) ?? 0;
  const apart = words.get(`${head}-${tail}`) ?? 0;
  if (together || apart) return apart > together;
  const list = dict?.();
  if (list?.has(joined)) return false;
  const both = (has: (w: string) => boolean) =>
    head.length >= 3 && tail.length >= 3 && has(head) && has(tail);
  return list ? both((w) => list.has(w)) : both((w) => words.has(w));
}

/** A line's last word broken with a hyphen: its letters before the hyphen, and whether that is a soft one. */
export function brokenWord(line: string): { head: string; soft: boolean } | undefined {
  if (!/[-\u00ad\u2010]$/.test(line)) return undefined;
  // The last word only: the pattern tried at every start of a long line costs more than all the rest.
  const end = BROKEN_END.exec(line.slice(-LONGEST_WORD));
  return end ? { head: end[1]!, soft: end[2] === '\u00ad' } : undefined;
}

/**
 * Joins words broken across lines, in document order (across columns and pages: the caller gives the
 * lines in reading order). Returns each line's new text; a line that was only the rest of a word
 * becomes empty.
 */
export function joinHyphenated(lines: string[], words: Map<string, number>, dict?: Dictionary): string[] {
  const out = lines.slice();
  for (let i = 0; i + 1 < out.length; i++) {
    const broken = brokenWord(out[i]!);
    const rest = broken && REST.exec(out[i + 1]!);
    if (!broken || !rest) continue;
    const tail = rest[1]!;
    const keep = !broken.soft && keepsHyphen(broken.head.toLowerCase(), tail, words, dict);
    out[i] = `${out[i]!.slice(0, keep ? undefined : -1)}${tail}${rest[2]}`;
    out[i + 1] = out[i + 1]!.slice(rest[0].length);
  }
  return out;
}

/** Whether any line ends in a hyphen: most documents need no vocabulary at all. */
export const anyBroken = (lines: readonly string[]): boolean => lines.some((l) => /[-\u00ad\u2010]$/.test(l));
