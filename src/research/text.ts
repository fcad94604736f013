// Small text helpers shared by the extractive answerer and the citation check.

/**
 * A light English stemmer: enough to match refund/refunds/refunded and approve/approval/approved. String
 * tests rather than patterns: it runs once per distinct word, inside loops the engine compiles whole.
 */
export function stem(word: string): string {
  let w = word.toLowerCase();
  if (w.endsWith("'s")) w = w.slice(0, -2);
  if (w.length <= 3) return w;
  if (w.endsWith('ies') && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (w.endsWith('ss') || w.endsWith('us') || w.endsWith('is')) {
    // class, status, analysis: not plurals
  } else if (['xes', 'zes', 'ches', 'shes'].some((end) => w.endsWith(end))) w = w.slice(0, -2);
  else if (w.endsWith('s')) w = w.slice(0, -1);
  if (w.endsWith('ing') && w.length > 5) w = w.slice(0, -3);
  else if (w.endsWith('ed') && w.length > 4) w = w.slice(0, -2);
  if (w.endsWith('al') && w.length > 6) w = w.slice(0, -2);
  if (w.endsWith('e') && w.length > 4) w = w.slice(0, -1);
  return w;
}

export function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** Markdown → plain sentences: headings, table rules and list markers removed, table rows as "a — b". */
export function markdownSentences(markdown: string): string[] {
  const paragraphs: string[] = [];
  let current: string[] = [];
  const end = () => {
    if (current.length) paragraphs.push(current.join(' '));
    current = [];
  };
  for (const raw of markdown.split('\n')) {
    const line = raw.trim();
    if (!line || /^#{1,6}\s/.test(line) || /^\|?\s*:?-{3,}/.test(line)) {
      end();
      continue;
    }
    if (line.startsWith('|')) {
      end();
      const cells = line
        .split('|')
        .map((c) => c.trim())
        .filter(Boolean);
      paragraphs.push(`${cells.join(' — ')}.`);
      continue;
    }
    const item = /^([-*+]|\d+[.)])\s+(.*)$/.exec(line);
    if (item) {
      end();
      current.push(item[2]!);
      continue;
    }
    current.push(line);
  }
  end();
  return paragraphs
    .map((p) => p.replace(/\*\*|__|`/g, '').replace(/\[([^\]]+)\]\([^)]*\)/g, '$1'))
    .flatMap((p) => splitSentences(p, false))
    .filter((s) => s.length > 0);
}

/** A source's paragraph split into sentences (no citations to keep: it is source text). */
export function sourceSentences(paragraph: string): string[] {
  return splitSentences(paragraph, false);
}

/** Splits prose into sentences for checking, keeping `[n]` markers with the sentence they end. */
export function proseSentences(text: string): string[] {
  return text.split(/\n+/).flatMap((line) => splitSentences(line, true));
}

// Words whose period does not end a sentence: titles, Latin and other abbreviations, abbreviated months.
const ABBREVIATIONS = new Set(
  (
    'mr mrs ms mx dr prof sr jr st mt ft gen col lt sgt capt gov sen rep rev hon pres ' +
    'inc ltd co corp llc plc bros dept univ assn est approx appt ca cf vs viz al ' +
    'fig figs vol vols ed eds no nos art sec secs ch chap para pp pg p op ref refs ' +
    'jan feb mar apr jun jul aug sep sept oct nov dec mon tue tues wed thu thur thurs fri sat sun'
  ).split(' '),
);
const BOUNDARY = /([.!?])((?:["”’)\]]*)(?:\s*\[\d+(?:\s*,\s*\d+)*\])*)\s+(?=["“‘(]?[\p{Lu}\d$€£¥₹])/gu;

/**
 * Sentence ends: `.`, `!` or `?` (with closing quotes and, for prose, trailing `[n]` citations) before a
 * capital or a digit — but never after an abbreviation (`Sept.`, `Dr.`, `e.g.`, `U.S.`, `No. 5`, `vs.`)
 * or a single initial (`J. Smith`).
 */
function splitSentences(text: string, keepCites: boolean): string[] {
  // Most lines of a source are one sentence or none: split only where an end mark is.
  if (!/[.!?]/.test(text)) return text.trim() ? [text.trim()] : [];
  const out: string[] = [];
  let start = 0;
  // A sentence never ends inside a code span (`make. Then test`).
  const code = text.includes('`') ? codeSpans(text) : undefined;
  BOUNDARY.lastIndex = 0;
  for (let m = BOUNDARY.exec(text); m; m = BOUNDARY.exec(text)) {
    if (code?.some(([a, b]) => m.index > a && m.index < b)) continue;
    if (!keepCites && m[2]!.includes('[')) continue;
    if (m[1] === '.' && m[2] === '' && isAbbreviation(text, start, m.index)) continue;
    // "4. If the amount…": a number alone before its period is a step's marker, not a sentence.
    if (m[1] === '.' && /^\s*\(?\d{1,3}$/.test(text.slice(start, m.index))) continue;
    const end = m.index + m[1]!.length + m[2]!.length;
    out.push(text.slice(start, end).trim());
    start = end;
  }
  out.push(text.slice(start).trim());
  return out.filter(Boolean);
}

/** [start, end) of each `code span` in a line. */
function codeSpans(text: string): [number, number][] {
  return [...text.matchAll(/`[^`]*`/g)].map((m) => [m.index, m.index + m[0].length]);
}

const LETTER = /\p{L}/u;
const UPPER = /\p{Lu}/u;
const LONGEST_ABBREVIATION = 6;

/** The length in code units (1, or 2 for a surrogate pair) of a letter ending at `end`, not before `start`; 0 if none. */
function letterBefore(text: string, start: number, end: number): number {
  if (end <= start) return 0;
  const c = text.charCodeAt(end - 1);
  if (c < 128) return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) ? 1 : 0;
  if (c >= 0xdc00 && c <= 0xdfff && end - 2 >= start) return LETTER.test(text.slice(end - 2, end)) ? 2 : 0;
  return LETTER.test(text[end - 1]!) ? 1 : 0;
}

/**
 * Whether the period at `dot` ends an abbreviation rather than the sentence that began at `start`: one
 * that holds periods inside (`e.g.`, `U.S.`, `Ph.D.`), an initial (`J.`) or a listed word (`Sept.`).
 * Read backwards from the period, a few characters at most, rather than by patterns anchored at the
 * sentence's end, which would scan the whole sentence at every period.
 */
function isAbbreviation(text: string, start: number, dot: number): boolean {
  const last = letterBefore(text, start, dot);
  if (last === 0) return false;
  const at = dot - last;
  if (letterBefore(text, start, at) === 0) {
    if (UPPER.test(text.slice(at, dot))) return true;
    // Two or more letter-period pairs, the first after a non-letter: `e.g.`, `U.S.`.
    if (at > start && text[at - 1] === '.') {
      const previous = letterBefore(text, start, at - 1);
      if (previous > 0 && letterBefore(text, start, at - 1 - previous) === 0) return true;
    }
  }
  let from = dot;
  for (let n = 0, k = last; k > 0; k = letterBefore(text, start, from)) {
    if (++n > LONGEST_ABBREVIATION) return false;
    from -= k;
  }
  return ABBREVIATIONS.has(text.slice(from, dot).toLowerCase());
}
