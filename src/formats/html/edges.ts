// The edges of an extracted article: a byline or timestamp before it, recommendations after it.

// A short line like these ends the article: what follows is recommendations, tags or comments.
const TAIL_PHRASES =
  '(you (may|might) (also )?like|related( (articles|posts|stories|content))?|read (more|next|also)|more (from|stories|on)|recommended( for you)?|tags|topics|share (this|on)|comments?|leia (também|mais)|veja também|você pode gostar|lire aussi|à lire aussi|mehr zum thema|auch interessant|lee también|te puede interesar|leggi anche)';
const TAIL = new RegExp(`^${TAIL_PHRASES}\\b`, 'i');
// A heading that says only this starts the recommendations wherever it stands: no article has a
// section of its own called "You may also like" or "Comments".
const TAIL_HEADING = new RegExp(`^${TAIL_PHRASES}[\\s.:…!?]*$`, 'i');
const HEADING_LINE = /^\s*#{1,6} /;
// "Related: <title>" or "Read more: <title>" in the middle of an article points at one other story and
// the article goes on after it.
const POINTER =
  /^(related|read (more|next|also)|see also|leia (também|mais)|veja também|lire aussi|lee también)\s*:\s*\S/i;
// Short lines like these before the article proper are a byline or a timestamp.
const BYLINE = /^(by |updated\b|posted\b|published\b|last (updated|modified)\b)/i;
// Markdown markers in front of a line's words: headings, list items, quotes.
const MARKERS = /^(\s*(#{1,6} |[-*] |\d+\. |>\s?))+/;
const FENCE = /^\s*(`{3,})/;
/** A line's length as read: link targets do not count, or a list of tag links would seem to be the article. */
const shown = (line: string) => line.replace(/\]\((?:[^()\s]|\([^()\s]*\))*\)/g, ']').length;

/** Drops a byline at the top and recommendation lists at the bottom of Markdown text. */
export function trimEdges(markdown: string): string {
  const lines = markdown.split('\n');
  // The words of each line outside code blocks; code is never a byline or a tail marker.
  const words: (string | undefined)[] = [];
  let fenceMarks = '';
  for (const line of lines) {
    const f = FENCE.exec(line)?.[1];
    if (fenceMarks) {
      if (f && f.length >= fenceMarks.length && line.trim() === f) fenceMarks = '';
      words.push(undefined);
    } else if (f) {
      fenceMarks = f;
      words.push(undefined);
    } else words.push(line.replace(MARKERS, '').trim());
  }
  const text = lines.map((l, i) => ({ l, i })).filter(({ l }) => l.trim());
  let start = 0;
  for (const { i } of text.slice(0, 4)) {
    const w = words[i];
    if (w !== undefined && BYLINE.test(w) && shown(w) < 120) start = i + 1;
  }
  // Only near the end: a "Related" heading in the middle of an article is part of it.
  const total = lines.reduce((n, l) => n + shown(l) + 1, 0);
  let end = lines.length;
  let before = 0;
  let seen = 0;
  for (let i = 0; i < lines.length; i++) {
    const w = words[i];
    if (lines[i]!.trim() && i >= start) {
      const tail =
        w !== undefined &&
        shown(w) < 60 &&
        ((before > total * 0.6 && TAIL.test(w) && !POINTER.test(w)) ||
          (HEADING_LINE.test(lines[i]!) && TAIL_HEADING.test(w)));
      if (seen >= 3 && tail) {
        end = i;
        break;
      }
      seen++;
    }
    before += shown(lines[i]!) + 1;
  }
  return lines.slice(start, end).join('\n').trim();
}
