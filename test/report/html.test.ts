import { parse } from 'node-html-parser';
import { describe, expect, it } from 'vitest';
import { outFormat } from '../../src/report/format.js';
import { CSP, renderHtml } from '../../src/report/html.js';
import { savedRun, XSS_TITLE } from './run-fixture.js';

const page = renderHtml(savedRun());
// `pre` parsed as elements (node-html-parser keeps its content as raw text by default).
const doc = parse(page, { blockTextElements: { script: true, style: true } });
const text = (selector: string) => doc.querySelectorAll(selector).map((e) => e.text);

describe('the HTML report of a saved run', () => {
  it('is one self-contained file: a strict CSP, no script, nothing loaded from anywhere', () => {
    expect(doc.querySelector('meta[http-equiv="Content-Security-Policy"]')?.getAttribute('content')).toBe(
      CSP,
    );
    expect(CSP).toContain("default-src 'none'");
    expect(doc.querySelectorAll('script, link, img, iframe, object, embed')).toHaveLength(0);
    expect(page).not.toMatch(/<script|@import|url\(|src=["']?http/i);
  });

  it('has the question, date, mode, models and cost in its header, and a table of contents', () => {
    expect(doc.querySelector('h1')?.text).toBe('Refunds and approvals at Acme');
    expect(doc.querySelector('.question')?.text).toBe(
      'Question: How do refunds, approvals and escalations fit together?',
    );
    expect(doc.querySelector('.meta')?.text).toBe(
      '2026-11-02 10:04 UTC' + 'report' + 'claude-haiku-5-5, claude-sonnet-5' + '$0.03120' + '40 sources',
    );
    expect(text('nav.toc a')).toEqual([
      'Summary',
      'Limits by role',
      'How a refund is filed',
      'Gaps and caveats',
    ]);
    for (const a of doc.querySelectorAll('nav.toc a'))
      expect(doc.getElementById(a.getAttribute('href')!.slice(1))?.tagName).toBe('H2');
  });

  it('renders tables with alignment, code, nested lists and quotes', () => {
    expect(text('table th')).toEqual(['Role', 'Limit', 'Approver']);
    expect(doc.querySelectorAll('table tbody tr')).toHaveLength(3);
    expect(doc.querySelectorAll('td')[1]!.getAttribute('style')).toBe('text-align:right');
    const code = doc.querySelector('pre code')!;
    expect(code.getAttribute('class')).toBe('language-ts');
    expect(code.text).toContain(
      "const refund = await file({ amount: 50, currency: 'USD' }); // [7] is not a citation here",
    );
    expect(code.querySelector('a')).toBeNull();
    expect(doc.querySelectorAll('ol > li > ul > li > ul > li')).toHaveLength(1);
    expect(doc.querySelector('blockquote')?.text).toContain('Refunds are processed within 5 business days');
  });

  it('makes every [n] a link to its source entry with the evidence beside it', () => {
    const cites = doc.querySelectorAll('a.cite');
    expect(cites.length).toBe(11);
    for (const a of cites) {
      const n = a.text.slice(1, -1);
      expect(a.getAttribute('href')).toBe(`#src-${n}`);
      expect(doc.getElementById(`src-${n}`)?.tagName).toBe('LI');
      const ev = doc.getElementById(a.getAttribute('aria-describedby')!)!;
      expect(ev.getAttribute('role')).toBe('tooltip');
      expect(ev.text).toContain(`[${n}]`);
    }
    const first = doc.getElementById(cites[0]!.getAttribute('aria-describedby')!)!;
    expect(first.querySelector('q')?.text).toBe('Agents can refund up to $50 on their own.');
    expect(first.querySelector('.ev-where')?.text).toBe('Refunds › Limits');
    const second = doc.getElementById(cites[1]!.getAttribute('aria-describedby')!)!;
    expect(second.querySelector('a')?.getAttribute('href')).toBe(
      'https://docs.example.com/policy/2#:~:text=A%20team%20lead,to%20%24500',
    );
    // A citation with no evidence recorded shows what the run has: the source and where it is.
    const fifth = doc.querySelectorAll('a.cite').find((a) => a.text === '[5]')!;
    expect(doc.getElementById(fifth.getAttribute('aria-describedby')!)!.text).toContain(
      'content/handbook/section-5.md',
    );
  });

  it('marks flagged sentences with their reason, and lists them at the end', () => {
    const marks = doc.querySelectorAll('mark.flag').map((m) => m.text.replace(/\s+/g, ' '));
    expect(marks.join(' ')).toContain('Team leads approve up to $500');
    expect(marks.join(' ')).toContain('Refunds over $10,000 are approved by the CEO');
    expect(marks.join(' ')).not.toContain('Support agents may refund');
    const reasons = doc
      .querySelectorAll('a.flagmark')
      .map((a) => doc.getElementById(a.getAttribute('aria-describedby')!)!.text);
    expect(reasons).toEqual([
      'Partial. Source [3] says nothing about team leads.',
      'Unsupported. No source mentions a finance desk <script>.',
      'Not found in source. [9] does not contain: $10,000.',
    ]);
    expect(doc.querySelectorAll('ul.flags > li')).toHaveLength(3);
    for (const a of doc.querySelectorAll('a.flagmark'))
      expect(
        doc.getElementById(a.getAttribute('href')!.slice(1))?.parentNode?.classList.contains('flags'),
      ).toBe(true);
  });

  it('lists the 40 sources with a link for http(s) only, the path, how each was read and when', () => {
    const items = doc.querySelectorAll('ol.sources > li');
    expect(items).toHaveLength(40);
    expect(items[1]!.querySelector('a')?.getAttribute('href')).toBe(
      'https://docs.example.com/policy/2?a=1&b=2',
    );
    expect(items[1]!.querySelector('.src-meta')?.text).toBe('read in full, read 2026-11-02');
    expect(items[0]!.querySelector('code')?.text).toBe('content/handbook/section-1.md');
    expect(items[4]!.querySelector('.src-meta')?.text).toBe('the passages that match the question');
    expect(items[3]!.querySelector('a')).toBeNull();
    expect(items[3]!.querySelector('code')?.text).toBe('javascript:alert(3)');
  });

  it('escapes everything from models and sources: markup is text, javascript: is never a link', () => {
    expect(doc.getElementById('src-3')?.querySelector('strong')?.text).toBe(XSS_TITLE);
    expect(page).not.toContain('<img src=x');
    expect(page).toContain('&lt;script&gt;alert(&quot;report&quot;)&lt;/script&gt;');
    expect(
      doc
        .querySelectorAll('a')
        .map((a) => a.getAttribute('href') ?? '')
        .filter((h) => !/^(#|https?:)/.test(h)),
    ).toEqual([]);
    expect(doc.querySelector('.img')?.text).toBe('[image: Refund flow] https://example.com/flow.png');
  });

  it('shows an older run without evidence, verification or models, and a plain answer without contents', () => {
    const old = parse(
      renderHtml({
        question: 'Q?',
        mode: 'extractive',
        answer: '- A fact [1]',
        sources: [{ n: 1, title: 'T', location: '/a.md' }],
      }),
    );
    expect(old.querySelector('h1')?.text).toBe('Q?');
    expect(old.querySelector('nav.toc')).toBeNull();
    expect(old.querySelector('.notice')?.text).toMatch(/No model was used/);
    expect(old.querySelector('.ev')?.text).toContain('No quote recorded');
    expect(old.querySelector('section h2#flags-title')).toBeNull();
  });
});

describe('--format and the --out name', () => {
  it('picks HTML for .html and .htm, Markdown otherwise, and --format wins', () => {
    expect(outFormat('r.html', undefined)).toBe('html');
    expect(outFormat('R.HTM', undefined)).toBe('html');
    expect(outFormat('r.md', undefined)).toBe('md');
    expect(outFormat('r.html', 'md')).toBe('md');
    expect(outFormat('r.txt', 'html')).toBe('html');
    expect(outFormat(undefined, undefined)).toBeUndefined();
    expect(() => outFormat(undefined, 'html')).toThrow(/--format chooses what --out writes/);
  });
});

describe('flags where the reader looks', () => {
  const answer = [
    'First fact is $10 [1]. Second fact is $20 [1]. Third is **$30** [1]. [Fourth](https://example.com/x) is fine [1].',
    '',
    '| Region | Levy | Source |',
    '| --- | --- | --- |',
    '| Most cities | $200 | [1] |',
    '| Capital | $300 | [1] |',
  ].join('\n');
  const run = {
    question: 'Levies?',
    answer,
    sources: [{ n: 1, title: 'Levies', location: '/tmp/levies.md', kind: 'document', read: 'read' }],
    grounding: {
      checked: 6,
      notChecked: 0,
      unsupported: [
        { sentence: 'First fact is $10 [1].', cites: [1], missing: ['$10'] },
        { sentence: 'Second fact is $20 [1].', cites: [1], missing: ['$20'] },
        { sentence: 'Third is **$30** [1].', cites: [1], missing: ['$30'] },
        { sentence: '| Most cities | $200 | [1] |', cites: [1], missing: ['$200'] },
      ],
    },
  };
  const html = renderHtml(run);
  const flagged = parse(html);

  it('puts each flag right after its own sentence, in order', () => {
    const paragraph = flagged.querySelector('main p:not(.meta):not(.question)')!.innerHTML;
    const at = (s: string) => paragraph.indexOf(s);
    expect(at('id="flagged-0"')).toBeGreaterThan(at('First fact'));
    expect(at('id="flagged-0"')).toBeLessThan(at('Second fact'));
    expect(at('id="flagged-1"')).toBeLessThan(at('Third is'));
    expect(at('id="flagged-2"')).toBeLessThan(at('href="https://example.com/x"'));
  });

  it('marks a flagged table row, with its marker and its "Show in the text" link', () => {
    const row = flagged.querySelector('tr.flag');
    expect(row?.text).toContain('Most cities');
    expect(row?.querySelector('a.flagmark')?.getAttribute('id')).toBe('flagged-3');
    expect(flagged.querySelector('#flag-3 a[href="#flagged-3"]')?.text).toBe('Show in the text');
  });

  it('says how many cited claims were checked and how many were not', () => {
    expect(flagged.querySelector('p.checks')?.text).toBe(
      'The grounding check compared the figures, dates and quotations of 6 cited claims (4 flagged above); 0 cited claims had nothing it could compare and were not checked.',
    );
    // A run saved before the count existed says nothing rather than something wrong.
    expect(doc.querySelector('p.checks')).toBeNull();
  });

  it('lists flagged sentences as text, not Markdown', () => {
    const listed = flagged.querySelectorAll('ul.flags q').map((q) => q.text);
    expect(listed).toEqual([
      'First fact is $10 [1].',
      'Second fact is $20 [1].',
      'Third is $30 [1].',
      'Most cities — $200 [1]',
    ]);
  });
});
