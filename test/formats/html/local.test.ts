import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { extractHtml, readHtmlDocument } from '../../../src/formats/html/html-to-text.js';

// The law for a local HTML file: nothing a reader reads is dropped, whatever its wrappers are called;
// only blocks marked as navigation that hold nothing but links are. Checked over generated documents,
// not a list of pages, so that a rule made for one generator cannot pass for the rest.

const word = fc.stringMatching(/^[a-z]{3,9}$/);
const sentence = fc.array(word, { minLength: 12, maxLength: 20 }).map((w) => `${w.join(' ')}.`);
// Names the web page heuristics read as boilerplate, and some they read as content.
const wrapper = fc.record({
  tag: fc.constantFrom('div', 'section', 'aside', 'article', 'footer', 'header', 'span'),
  name: fc.constantFrom(
    'comment',
    'sidebar',
    'footer',
    'related',
    'extra',
    'share',
    'byline',
    'menu',
    'content',
    '',
  ),
});
const block = fc.oneof(
  sentence.map((s) => ({
    html: `<p>${s.replace(' ', ' <a href="https://example.org/x">link</a> ')}</p>`,
    text: s,
  })),
  fc.array(sentence, { minLength: 1, maxLength: 3 }).map((items) => ({
    html: `<ul>${items.map((i) => `<li>${i}</li>`).join('')}</ul>`,
    text: items.join(' '),
  })),
  fc.tuple(fc.integer({ min: 1, max: 6 }), fc.array(word, { minLength: 1, maxLength: 5 })).map(([n, w]) => ({
    html: `<h${n}>${w.join(' ')}</h${n}>`,
    text: w.join(' '),
    heading: `${'#'.repeat(n)} ${w.join(' ')}`,
  })),
  fc.array(fc.tuple(word, word), { minLength: 2, maxLength: 4 }).map((rows) => ({
    html: `<table>${rows.map(([a, b]) => `<tr><td>${a}</td><td>${b}</td></tr>`).join('')}</table>`,
    text: rows.flat().join(' '),
  })),
);
const wrapped = fc.tuple(block, fc.array(wrapper, { maxLength: 3 })).map(([b, wrappers]) => ({
  ...b,
  html: wrappers.reduce((inner, w) => `<${w.tag} class="${w.name}">${inner}</${w.tag}>`, b.html),
}));
const navBar = fc
  .tuple(
    fc.constantFrom('<nav>', '<div role="navigation">', '<div class="navheader">', '<div class="related">'),
    fc.array(word, { minLength: 2, maxLength: 5 }),
  )
  .map(([open, labels]) => {
    const close = open === '<nav>' ? '</nav>' : '</div>';
    return `${open}${labels.map((l) => `<a href="${l}.html">NAV${l}</a>`).join(' | ')}${close}`;
  });

const wordsOf = (text: string) => text.match(/[a-z]{3,9}/g) ?? [];

describe('a local HTML file is read whole', () => {
  it('keeps every word and heading, whatever wrappers and class names hold them; drops navigation bars', () => {
    fc.assert(
      fc.property(
        fc.array(wrapped, { minLength: 1, maxLength: 8 }),
        navBar,
        navBar,
        (blocks, top, bottom) => {
          const html = `<html><body>${top}${blocks.map((b) => b.html).join('\n')}${bottom}</body></html>`;
          const { text } = readHtmlDocument(html);
          const out = new Set(wordsOf(text));
          for (const b of blocks) for (const w of wordsOf(b.text)) expect(out).toContain(w);
          for (const b of blocks) if ('heading' in b) expect(text.split('\n')).toContain(b.heading);
          expect(text).not.toContain('NAV');
        },
      ),
      { numRuns: 150 },
    );
  });

  it('is read whole where the web page reader keeps only the article', () => {
    const prose = (s: string) => `<p>${s} ${'The policy explains how each case is handled. '.repeat(4)}</p>`;
    const html = `<body><article>${prose('Refunds are common.')}${prose('Refunds go to the card.')}</article>
      <div class="comments">${prose('A reader asks about store credit.')}</div></body>`;
    expect(extractHtml(html).text).not.toContain('store credit');
    expect(readHtmlDocument(html).text).toContain('A reader asks about store credit.');
  });

  it('keeps a navigation-classed block that holds prose, and a table of contents without a mark', () => {
    const html = `<div class="header"><p>This header holds a sentence that a reader reads, with a
      <a href="x.html">link</a> in it, so it stays.</p></div>
      <div class="toc"><a href="#a">1. Start</a><br><a href="#b">2. End</a></div>`;
    expect(readHtmlDocument(html).text).toBe(
      'This header holds a sentence that a reader reads, with a [link](x.html) in it, so it stays.\n\n1. Start\n2. End',
    );
  });
});

describe('a local HTML file: site chrome by markup', () => {
  it('drops a banner and a footer of links only, and keeps a header with the document’s title', () => {
    const html = `<body><header role="banner"><a href="/">Home</a> <a href="/docs/">Docs</a></header>
      <header><h1>Users and groups</h1><a href="#intro">Skip to the text</a></header>
      <main><p>Every system user is listed here with the reason it exists and who may remove it.</p></main>
      <footer><a href="/about">About</a> · <a href="/legal">Legal</a></footer>
      <div role="contentinfo"><a href="/feed">Feed</a></div>
      <footer><p>Written by the Debian base-passwd maintainers, who answer questions about it on the list.</p></footer></body>`;
    expect(readHtmlDocument(html).text).toBe(
      '# Users and groups\n\nSkip to the text\n\n' +
        'Every system user is listed here with the reason it exists and who may remove it.\n\n' +
        'Written by the Debian base-passwd maintainers, who answer questions about it on the list.',
    );
  });
});

describe('links, emphasis and titles', () => {
  it('writes any link as [text](url), brackets in its text escaped, a bare URL as <url>', () => {
    const url = fc.webUrl({ withQueryParameters: true }).filter((u) => !/[\s()]/.test(u));
    fc.assert(
      fc.property(url, fc.array(word, { minLength: 1, maxLength: 4 }), (href, w) => {
        const label = `[${w.join(' ')}]`;
        const { text } = readHtmlDocument(
          `<p>See <a href="${href.replace(/&/g, '&amp;')}">${label}</a> and <a href="${href.replace(/&/g, '&amp;')}">${href.replace(/&/g, '&amp;')}</a>.</p>`,
        );
        expect(text).toBe(`See [\\[${w.join(' ')}\\]](${href}) and <${href}>.`);
      }),
      { numRuns: 100 },
    );
  });

  it('resolves a web page’s relative links against its address and leaves in-page links as text', () => {
    const html = `<article><p>${'Refunds go to the card the order was paid with. '.repeat(6)}
      See <a href="/policy?id=2">the policy</a>, <a href="#limits">the limits</a> and
      <a href="javascript:void(0)">nothing</a>.</p></article>`;
    const { text } = extractHtml(html, 'https://shop.example/help/refunds');
    expect(text).toContain('See [the policy](https://shop.example/policy?id=2), the limits and nothing.');
  });

  it('keeps bold and italic, with the spaces outside the marks, and bold inside bold once', () => {
    expect(readHtmlDocument('<p>Refund <b> first </b>and <em>ask</em> later.</p>').text).toBe(
      'Refund **first** and *ask* later.',
    );
    expect(readHtmlDocument('<p><b>Limits <strong>by role</strong>, <i>in</i> dollars</b></p>').text).toBe(
      '**Limits by role, *in* dollars**',
    );
  });

  it('titles a document by its one <h1>, else its <title>, else its first heading', () => {
    const title = (html: string) => readHtmlDocument(html).title;
    expect(title('<title>Refunds — Acme Help</title><h1>Refunds¶</h1>')).toBe('Refunds');
    expect(title('<title>Intranet · Parking</title><h1>Visitor Parking</h1>')).toBe('Visitor Parking');
    // Several <h1>: a site's name and the page's, or one per chapter.
    expect(title('<title>Refunds</title><h1>Acme</h1><h1>Refund rules</h1>')).toBe('Refunds');
    expect(title('<title>Guide — Acme</title><h1>Guide</h1><h1>Chapter 1</h1>')).toBe('Guide');
    expect(title('<title>8.1. Numeric Types</title><h2>8.1. Numeric Types</h2>')).toBe('8.1. Numeric Types');
    expect(title('<h3>2.1 The Basics</h3><p>Text.</p>')).toBe('2.1 The Basics');
    expect(title('<p>Only text.</p>')).toBe('');
    // A site's name set as an <h1> in its menu bar (mdBook) is not the page's, even when <title> holds both.
    expect(
      title(
        '<title>What is rustdoc? - The rustdoc book</title><div id="menu-bar"><h1 class="menu-title">The rustdoc book</h1></div><main><h1>What is rustdoc?</h1></main>',
      ),
    ).toBe('What is rustdoc?');
    // An article's own header holds its title; a heading's button is not part of it.
    expect(
      title(
        '<title>Crate std_detect</title><header><h1>Acme docs</h1></header><article><header><h1>Crate std_detect<button>Copy item path</button></h1></header></article>',
      ),
    ).toBe('Crate std_detect');
  });
});
