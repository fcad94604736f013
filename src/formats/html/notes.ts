import type { HTMLElement, Node } from 'node-html-parser';
import { contains, isElement, tagOf } from './dom.js';

// Footnotes, found by their shape rather than by one generator's class names: a short in-page link
// ("1", "[2]", "*", "†") whose target is a short block that is not a heading or a section. Sphinx,
// DocBook, mammoth (Word), MediaWiki and pandoc all write them so. The reference becomes `[^label]`
// and the note `[^label]: text` after the document, without its label and its links back ("↑", "^").

const MARK = /^[[(]?(\d{1,3}|[*†‡§]|[a-z]|[ivx]{1,5})[\])]?$/i;
/** Blocks that hold one note when the link's target is inline (an anchor inside the note). */
const NOTE_BLOCKS = new Set(['aside', 'li', 'div', 'p', 'dd', 'dt', 'td', 'footer', 'section']);
const HEADING = /^h[1-6]$/;
/** A target with more text than this is a section, not a note. */
const MAX_NOTE_CHARS = 4000;
const BACK_MARK = /^[\s↑↩^⏎]*$/u;

export interface Notes {
  /** Each reference link → its label. */
  refs: Map<HTMLElement, string>;
  /** The elements of each note (a `<dt>` note has its `<dd>` too), in order of first reference. */
  notes: { label: string; parts: HTMLElement[] }[];
  /** Every element that belongs to a note: not written where it stands. */
  inNote: Set<HTMLElement>;
}

const ancestors = (e: HTMLElement, n: number): HTMLElement[] => {
  const out: HTMLElement[] = [];
  for (
    let p = e.parentNode as HTMLElement | null;
    p && out.length < n;
    p = p.parentNode as HTMLElement | null
  )
    out.push(p);
  return out;
};

function fragment(href: string): string {
  try {
    return decodeURIComponent(href.slice(1));
  } catch {
    return href.slice(1);
  }
}

function topOf(n: Node): HTMLElement {
  let top = n as HTMLElement;
  while (top.parentNode) top = top.parentNode as HTMLElement;
  return top;
}

/**
 * A target that is itself a reference (an in-page link, or a short <sup> around one): a link to it is a
 * note's link back to where it is cited, not a reference.
 */
const isReference = (target: HTMLElement): boolean =>
  (tagOf(target) === 'a' && (target.getAttribute('href') ?? '').startsWith('#')) ||
  (target.textContent.trim().length <= 8 && target.querySelector('a[href^="#"]') !== null);

/** The block holding the note a link points at, or undefined when the target is not a note. */
function noteParts(target: HTMLElement): HTMLElement[] | undefined {
  if (isReference(target)) return undefined;
  let block: HTMLElement | null = target;
  while (block && !NOTE_BLOCKS.has(tagOf(block))) {
    if (HEADING.test(tagOf(block))) return undefined;
    block = block.parentNode as HTMLElement | null;
  }
  if (!block || block.querySelector('h1, h2, h3, h4, h5, h6')) return undefined;
  const parts = [block];
  if (tagOf(block) === 'dt') {
    const next = block.nextElementSibling;
    if (next && tagOf(next) === 'dd') parts.push(next);
  }
  const length = parts.reduce((n, p) => n + p.textContent.trim().length, 0);
  return length > 0 && length <= MAX_NOTE_CHARS ? parts : undefined;
}

/** The footnotes referred to from `nodes`, their targets looked up in the whole tree. */
export function findNotes(nodes: Node[]): Notes {
  const found: Notes = { refs: new Map(), notes: [], inNote: new Set() };
  const first = nodes.find(isElement);
  if (!first) return found;
  const ids = new Map<string, HTMLElement>();
  for (const e of topOf(first).querySelectorAll('[id], a[name]')) {
    const id = e.getAttribute('id') ?? e.getAttribute('name')!;
    if (!ids.has(id)) ids.set(id, e);
  }
  const byBlock = new Map<HTMLElement, { label: string; parts: HTMLElement[] }>();
  const labels = new Set<string>();
  let order: Map<HTMLElement, number> | undefined;
  // A note comes after where it is cited: an anchor earlier in the text is something else (an index's
  // page numbers pointing into paragraphs), and moving it to the end would reorder the document.
  const after = (a: HTMLElement, note: HTMLElement) => {
    order ??= new Map(
      topOf(first)
        .querySelectorAll('*')
        .map((e, i) => [e, i] as const),
    );
    return (order.get(note) ?? -1) > (order.get(a) ?? 0);
  };
  const links = nodes.filter(isElement).flatMap((n) => [n, ...n.querySelectorAll('a')]);
  for (const a of links) {
    if (tagOf(a) !== 'a') continue;
    const href = a.getAttribute('href') ?? '';
    const text = a.textContent.trim();
    const mark = MARK.exec(text)?.[1];
    if (!href.startsWith('#') || !mark) continue;
    // A letter or roman numeral is a note's mark only when it looks like one: raised or bracketed.
    if (/^[a-z]/i.test(mark) && !/^[[(]/.test(text) && !a.closest('sup') && !a.querySelector('sup')) continue;
    const target = ids.get(fragment(href));
    const parts = target && noteParts(target);
    if (!parts || parts.some((p) => contains(p, a)) || !after(a, parts[0]!)) continue;
    let note = byBlock.get(parts[0]!);
    if (!note) {
      let label = mark;
      for (let i = 2; labels.has(label); i++) label = `${mark}-${i}`;
      labels.add(label);
      note = { label, parts };
      byBlock.set(parts[0]!, note);
      found.notes.push(note);
      for (const p of parts) found.inNote.add(p);
    }
    found.refs.set(a, note.label);
  }
  dropBackLinks(found, ids);
  return found;
}

/** Removes the links from each note back to its references, and marks that are nothing but that. */
function dropBackLinks(found: Notes, ids: Map<string, HTMLElement>): void {
  // A back link points at a reference or at the element wrapping it (MediaWiki's <sup id>).
  const refHolders = new Set<HTMLElement>();
  for (const a of found.refs.keys()) for (const e of [a, ...ancestors(a, 2)]) refHolders.add(e);
  for (const { parts } of found.notes)
    for (const part of parts)
      for (const a of part.querySelectorAll('a')) {
        const href = a.getAttribute('href') ?? '';
        const target = href.startsWith('#') ? ids.get(fragment(href)) : undefined;
        const back =
          a.getAttribute('role') === 'doc-backlink' ||
          (target !== undefined && refHolders.has(target)) ||
          (href.startsWith('#') && BACK_MARK.test(a.textContent));
        if (back) a.remove();
      }
}

/** A note's text without the label it starts with and the punctuation back links left behind. */
export function noteText(label: string, blocks: string[]): string {
  const mark = label.replace(/-\d+$/, '').replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  // "[1]", "(1)", "1." or "1)": a bare "1" may be the note's own first word ("1 in 10 users…").
  const labelled = new RegExp(`^(?:\\[${mark}\\]|\\(${mark}\\)|${mark}[.)])(?![\\p{L}\\p{N}])`, 'u');
  // What back links leave behind: "(,)" from "(1, 2)", "[]" from a label that was one.
  const residue = /^(?:\s|[,;]|\(\s*[,;\s]*\)|\[\s*[,;\s]*\])+/;
  const text = blocks.join('\n\n').replace(residue, '').replace(labelled, '').replace(residue, '').trim();
  // Later paragraphs of the note are indented under it, as Markdown footnotes continue.
  const [first, ...rest] = text.split('\n');
  return [`[^${label}]: ${first}`, ...rest.map((l) => (l ? `    ${l}` : ''))].join('\n');
}
