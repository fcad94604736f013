import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { extractHtml, htmlToMarkdown, readHtmlDocument } from '../../../src/formats/html/html-to-text.js';

// Footnotes as each generator writes them become `[^n]` where they are cited and `[^n]: text` after the
// document, once, without their labels and links back. The shapes are the generators' own; the texts
// and the number of notes vary.

type Shape = (n: number, text: string) => { ref: string; note: string };
const SHAPES: Record<string, Shape> = {
  sphinx: (n, text) => ({
    ref: `<a class="footnote-reference brackets" href="#fn${n}" id="ref${n}" role="doc-noteref"><span class="fn-bracket">[</span>${n}<span class="fn-bracket">]</span></a>`,
    note: `<aside class="footnote brackets" id="fn${n}" role="note"><span class="label"><span class="fn-bracket">[</span>${n}<span class="fn-bracket">]</span></span><span class="backrefs">(<a role="doc-backlink" href="#ref${n}">1</a>)</span><p>${text}</p></aside>`,
  }),
  docbook: (n, text) => ({
    ref: `<a id="id${n}" href="#ftn.id${n}" class="footnote"><sup class="footnote">[${n}]</sup></a>`,
    note: `<div id="ftn.id${n}" class="footnote"><p><a href="#id${n}" class="para"><sup class="para">[${n}] </sup></a>${text}</p></div>`,
  }),
  mammoth: (n, text) => ({
    ref: `<sup><sup><a href="#footnote-${n}" id="footnote-ref-${n}">[${n}]</a></sup></sup>`,
    note: `<li id="footnote-${n}"><p> ${text} <a href="#footnote-ref-${n}">↑</a></p></li>`,
  }),
  mediawiki: (n, text) => ({
    ref: `<sup id="cite_ref-${n}" class="reference"><a href="#cite_note-${n}">[${n}]</a></sup>`,
    note: `<li id="cite_note-${n}"><span class="mw-cite-backlink"><b><a href="#cite_ref-${n}">^</a></b></span> <span class="reference-text">${text}</span></li>`,
  }),
};

const word = fc.stringMatching(/^[a-z]{3,9}$/);
const noteText = fc.array(word, { minLength: 2, maxLength: 12 }).map((w) => `${w.join(' ')}.`);

describe('footnotes', () => {
  for (const [name, shape] of Object.entries(SHAPES)) {
    it(`reads ${name}'s footnotes as Markdown footnotes`, () => {
      fc.assert(
        fc.property(fc.array(noteText, { minLength: 1, maxLength: 4 }), (texts) => {
          const parts = texts.map((t, i) => shape(i + 1, t));
          const list = name === 'mammoth' || name === 'mediawiki';
          const notes = parts.map((p) => p.note).join('');
          const html = `<p>${parts.map((p, i) => `Claim ${i + 1}.${p.ref}`).join(' ')}</p>${list ? `<ol>${notes}</ol>` : notes}`;
          const text = readHtmlDocument(html).text;
          const [body, ...rest] = text.split('\n\n');
          expect(body).toBe(texts.map((_, i) => `Claim ${i + 1}.[^${i + 1}]`).join(' '));
          expect(rest).toEqual(texts.map((t, i) => `[^${i + 1}]: ${t}`));
        }),
        { numRuns: 40 },
      );
    });
  }

  it('does not read a link to a section, or to a long block, as a footnote', () => {
    const html = `<p>See <a href="#s2">2</a>.</p><div id="s2"><h2>Two</h2><p>Text.</p></div>`;
    expect(htmlToMarkdown(html)).toBe('See 2.\n\n## Two\n\nText.');
  });

  it('labels notes that share a number apart (footnotes and endnotes both from 1)', () => {
    const html = `<p>A<a href="#f1">[1]</a> B<a href="#e1">[1]</a></p><ol><li id="f1">Foot.</li></ol><ol><li id="e1">End.</li></ol>`;
    expect(htmlToMarkdown(html)).toBe('A[^1] B[^1-2]\n\n[^1]: Foot.\n\n[^1-2]: End.');
  });
});

describe('what is not a footnote', () => {
  it('an anchor earlier in the text (an index pointing into a paragraph) stays where it is', () => {
    const html = '<p id="p1">First paragraph, long enough.</p><p>Index: refunds <a href="#p1">1</a>.</p>';
    expect(htmlToMarkdown(html)).toBe('First paragraph, long enough.\n\nIndex: refunds 1.');
  });

  it('a plain letter link is text; a raised one is a note', () => {
    const html = (ref: string) => `<p>Choose ${ref}.</p><ol><li id="a">Option text.</li></ol>`;
    expect(htmlToMarkdown(html('<a href="#a">a</a>'))).toBe('Choose a.\n\n1. Option text.');
    expect(htmlToMarkdown(html('<sup><a href="#a">a</a></sup>'))).toBe('Choose [^a].\n\n[^a]: Option text.');
  });
});

describe('note text', () => {
  it('drops what a label and back links leave ("[]", "(,)") but not a note’s own brackets', () => {
    const html = (note: string) =>
      `<p>Claim.<a href="#n" id="r">[1]</a></p><aside id="n" role="note">${note}</aside>`;
    expect(htmlToMarkdown(html('<span>[<a href="#r">1</a>]</span><p>New in 3.3.</p>'))).toBe(
      'Claim.[^1]\n\n[^1]: New in 3.3.',
    );
    expect(htmlToMarkdown(html('<p>(See RFC 4180.)</p>'))).toBe('Claim.[^1]\n\n[^1]: (See RFC 4180.)');
    expect(htmlToMarkdown(html('<p>1 in 10 users.</p>'))).toBe('Claim.[^1]\n\n[^1]: 1 in 10 users.');
  });
});

describe('footnotes of a web page', () => {
  it('keeps an article’s footnotes when they stand outside the part chosen as the article', () => {
    const prose = (s: string) =>
      `<p>${s} ${'The policy explains how each case is handled by the team. '.repeat(3)}</p>`;
    const html = `<body><article>${prose('Refunds go to the card.<sup><a href="#fn1" id="r1">1</a></sup>')}${prose('Credit is rare.')}</article>
      <div class="footnotes"><ol><li id="fn1">Since the 2024 policy. <a href="#r1">↩</a></li></ol></div></body>`;
    const { text } = extractHtml(html, 'https://shop.example/refunds');
    expect(text).toMatch(/^Refunds go to the card\.\[\^1\] The policy/);
    expect(text.endsWith('\n\n[^1]: Since the 2024 policy.')).toBe(true);
  });
});
