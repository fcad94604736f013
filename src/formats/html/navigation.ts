import type { HTMLElement, Node } from 'node-html-parser';
import { classAndId, elementChildren, isElement, isHidden, tagOf } from './dom.js';

// What a local HTML file holds that is not its text. A local document is the user's own: the web's
// main-content guesses (scores, class names like "comment" or "extra") never apply to it. Left out are
// only form controls, hidden elements and navigation bars: blocks marked as navigation (by <nav>, a
// role, or a class or id such as DocBook's "navheader", Sphinx's "related", Texinfo's "header", or a
// banner or footer landmark without a heading) that hold links and nothing a reader would read as prose.
// A table of contents without such a mark stays.

const CONTROLS = new Set(['button', 'input', 'select', 'textarea', 'dialog']);
const NAV_ROLES = /^(navigation|menubar|menu|toolbar|search)$/i;
const NAV_NAMES =
  /(?:^|[\s_-])(?:nav\w*|navigation|breadcrumbs?|menu|header|footer|related|sidebar\w*|topbar)(?:$|[\s_-])/i;
/** Words of text outside links from which a block holds prose: not a navigation bar. */
const PROSE_WORDS = 10;

/**
 * The most words in one stretch of text outside links: a navigation bar has only labels there ("Next:",
 * a chapter's title), a block of prose has sentences.
 */
function longestPlainRun(e: HTMLElement): number {
  let longest = 0;
  let run = '';
  const end = () => {
    longest = Math.max(longest, run.split(/\s+/).filter(Boolean).length);
    run = '';
  };
  const walk = (n: Node) => {
    if (!isElement(n)) run += n.text;
    else if (tagOf(n) === 'a') end();
    else {
      const block = !['span', 'b', 'i', 'em', 'strong', 'code', 'small', 'sup', 'sub'].includes(tagOf(n));
      if (block) end();
      for (const c of n.childNodes) walk(c);
      if (block) end();
    }
  };
  walk(e);
  end();
  return longest;
}

/** A table of contents (pandoc's `<nav id="TOC">`): part of the document, not the site's navigation. */
const TOC = /(?:^|[\s_-])toc(?:$|[\s_-])/i;

// A site's banner and footer landmarks: chrome when they hold only links, but a document's own
// <header> often holds its title, which a heading inside says.
const LANDMARK_TAGS = new Set(['header', 'footer']);
const LANDMARK_ROLES = /^(banner|contentinfo)$/i;
const HEADING = 'h1, h2, h3, h4, h5, h6';

/** A navigation bar: marked as one, with links, and no prose of its own. */
export function isNavigation(e: HTMLElement): boolean {
  if (e.getAttribute('role') === 'doc-toc' || TOC.test(classAndId(e))) return false;
  const role = e.getAttribute('role') ?? '';
  const landmark =
    (LANDMARK_TAGS.has(tagOf(e)) || LANDMARK_ROLES.test(role)) && e.querySelector(HEADING) === null;
  const marked = tagOf(e) === 'nav' || NAV_ROLES.test(role) || NAV_NAMES.test(classAndId(e)) || landmark;
  return marked && e.querySelector('a') !== null && longestPlainRun(e) < PROSE_WORDS;
}

/** Removes form controls, hidden elements and navigation bars from a local HTML document. */
export function dropChrome(e: HTMLElement): void {
  for (const child of elementChildren(e)) {
    if (CONTROLS.has(tagOf(child)) || isHidden(child) || isNavigation(child)) child.remove();
    else dropChrome(child);
  }
}
