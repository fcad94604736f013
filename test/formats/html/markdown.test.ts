import { describe, expect, it } from 'vitest';
import { htmlToMarkdown } from '../../../src/formats/html/html-to-text.js';

// htmlToMarkdown renders every part of a document: these tests pin the Markdown each structure becomes.

describe('htmlToMarkdown', () => {
  it('marks headings by level and separates paragraphs with a blank line', () => {
    const html = `<h1>Refunds  Policy</h1><p>Agents may refund
      up to <strong>$200</strong>.</p><h3>Limits <a href="/x">by role</a></h3><p>Leads approve more.</p>`;
    expect(htmlToMarkdown(html)).toBe(
      '# Refunds Policy\n\nAgents may refund up to **$200**.\n\n### Limits by role\n\nLeads approve more.',
    );
  });

  it('writes list items one per line, ordered lists numbered from their start, nested lists under their text', () => {
    const html = `<ul><li>First item</li><li>Second item<ul><li>Nested <em>one</em></li>
      <li>Nested two<ol><li>Deep</li></ol></li></ul></li><li>Third item</li></ul>
      <ol start="3"><li>Third step</li><li><p>Fourth step</p><p>with a second paragraph</p></li></ol>`;
    expect(htmlToMarkdown(html)).toBe(
      [
        '- First item',
        '- Second item',
        '  - Nested *one*',
        '  - Nested two',
        '    1. Deep',
        '- Third item',
        '',
        '3. Third step',
        '4. Fourth step',
        '   with a second paragraph',
      ].join('\n'),
    );
  });

  it('keeps a code block verbatim in a fence: indentation, blank lines, markup inside it read as text', () => {
    const html = `<p>Run this:</p><pre class="language-python"><code><span class="k">def</span> limit(role):
    if role == "agent":

        return 200 &lt; 1_000
</code></pre>`;
    expect(htmlToMarkdown(html)).toBe(
      'Run this:\n\n```python\ndef limit(role):\n    if role == "agent":\n\n        return 200 < 1_000\n```',
    );
  });

  it('makes the fence longer than any backticks in the code, and marks inline code', () => {
    const html = '<p>Use <code>agent  research</code> here.</p><pre>a ``` b</pre>';
    expect(htmlToMarkdown(html)).toBe('Use `agent research` here.\n\n````\na ``` b\n````');
  });

  it('quotes blockquotes line by line, keeping their paragraphs', () => {
    const html = '<blockquote><p>Refund first.</p><p>Ask later.</p></blockquote><p>After.</p>';
    expect(htmlToMarkdown(html)).toBe('> Refund first.\n>\n> Ask later.\n\nAfter.');
  });

  it('writes links as Markdown links, breaks lines at <br>, and skips scripts, styles and images', () => {
    const html = `<head><title>x</title><style>p{}</style></head><body><p>Call <a href="tel:1">the desk</a><br>
      or <img src="mail.png" alt="mail">write.</p><script>track()</script><h2>Hours<br>and days</h2></body>`;
    expect(htmlToMarkdown(html)).toBe('Call [the desk](tel:1)\nor write.\n\n## Hours and days');
  });

  it('keeps navigation and footers: in a converted document every part is content', () => {
    expect(htmlToMarkdown('<nav><p>Contents</p></nav><p>Body.</p><footer><p>Page 2</p></footer>')).toBe(
      'Contents\n\nBody.\n\nPage 2',
    );
  });

  it('writes a definition list as terms with their definitions indented under them', () => {
    expect(htmlToMarkdown('<dl><dt>SLA</dt><dd>Service level agreement</dd></dl>')).toBe(
      'SLA\n  Service level agreement',
    );
  });
});
