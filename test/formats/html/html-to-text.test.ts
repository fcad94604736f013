import { describe, expect, it } from 'vitest';
import { extractHtml } from '../../../src/formats/html/html-to-text.js';

// extractHtml picks a page's article and writes it as Markdown: what belongs to the article keeps its
// structure, what surrounds it (navigation, related links, share buttons) is still dropped.

const prose = (lead: string) =>
  `<p>${lead} ${'The policy explains, in some detail, how each case is handled by the team. '.repeat(3)}</p>`;

const page = (main: string, extra = '') => `<!doctype html><html><head><title>Refunds | Example</title></head>
<body><nav><ul><li><a href="/">Home</a></li><li><a href="/pricing">Pricing</a></li></ul></nav>
<div class="share"><a href="https://twitter.com/share">Tweet</a> <a href="https://facebook.com/share">Share</a></div>
${main}${extra}<footer><p>© 2026 Example Inc.</p></footer></body></html>`;

describe('extractHtml keeps the structure of the article', () => {
  it('keeps a table inside <main> as a pipe table with its header and row', () => {
    const html = page(
      `<main>${prose('Refund limits depend on the role.')}<table><tr><th>Tier</th><th>Limit</th></tr><tr><td>Agent</td><td>$200</td></tr></table></main>`,
    );
    const { title, text } = extractHtml(html);
    expect(title).toBe('Refunds | Example');
    expect(text).toContain('| Tier | Limit |\n| --- | --- |\n| Agent | $200 |');
    expect(text).not.toMatch(/Home|Pricing|Tweet|© 2026/);
  });

  it('keeps a table that is all there is in <main>', () => {
    const html = page(
      '<main><table><tr><th>Tier</th><th>Limit</th></tr><tr><td>Agent</td><td>$200</td></tr></table></main>',
    );
    expect(extractHtml(html).text).toBe('| Tier | Limit |\n| --- | --- |\n| Agent | $200 |');
  });

  it('keeps a short list after the paragraphs of <main>, one item per line', () => {
    const html = page(
      `<main>${prose('First paragraph.')}${prose('Second paragraph.')}<ul><li>First item</li><li>Second item</li></ul></main>`,
    );
    const text = extractHtml(html).text;
    expect(text.endsWith('\n\n- First item\n- Second item')).toBe(true);
    expect(text.split('\n\n').map((b) => b.split('.')[0])).toEqual([
      'First paragraph',
      'Second paragraph',
      '- First item\n- Second item',
    ]);
  });

  it('marks headings, numbers ordered lists, indents nested lists, fences code and quotes', () => {
    const html = page(`<article><h1>Refund rules</h1>${prose('Refunds are common.')}
      <h2>Steps</h2><ol><li>Check the order</li><li>Refund it<ul><li>by card</li><li>by credit</li></ul></li></ol>
      ${prose('Code helps.')}<pre><code>refund(order, {
  amount: 200,
})</code></pre><blockquote><p>Refund first, ask later.</p></blockquote>${prose('The end.')}</article>`);
    const text = extractHtml(html).text;
    expect(text.startsWith('# Refund rules\n\nRefunds are common.')).toBe(true);
    expect(text).toContain(
      '\n\n## Steps\n\n1. Check the order\n2. Refund it\n   - by card\n   - by credit\n\n',
    );
    expect(text).toContain('\n\n```\nrefund(order, {\n  amount: 200,\n})\n```\n\n');
    expect(text).toContain('\n\n> Refund first, ask later.\n\n');
  });

  it('keeps lists, tables and subheadings standing between the parts of an article', () => {
    // The prose sits in two containers; the list, table and heading between them score nothing of their own.
    const html = page(`<div id="story"><div class="part">${prose('Part one.')}</div>
      <h3>What changes</h3><ul><li>Limits rise</li><li>Forms go</li></ul>
      <table><tr><th>Role</th><th>Limit</th></tr><tr><td>Lead</td><td>$1,000</td></tr></table>
      <div class="part">${prose('Part two.')}</div></div>`);
    const text = extractHtml(html).text;
    expect(text.split('\n\n').map((b) => b.split('.')[0])).toEqual([
      'Part one',
      '### What changes',
      '- Limits rise\n- Forms go',
      '| Role | Limit |\n| --- | --- |\n| Lead | $1,000 |',
      'Part two',
    ]);
  });

  it('flattens a layout table holding the article rather than making it a pipe table', () => {
    const html = `<html><body><table><tr><td class="menu"><a href="/">Home</a></td>
      <td>${prose('The article is in this cell.')}${prose('It goes on here.')}${prose('And ends here.')}</td></tr></table></body></html>`;
    const text = extractHtml(html).text;
    expect(text).not.toContain('|');
    expect(text.split('\n\n').map((b) => b.split('.')[0])).toEqual([
      'The article is in this cell',
      'It goes on here',
      'And ends here',
    ]);
  });
});

describe('extractHtml still drops what surrounds the article', () => {
  it('drops navigation, share buttons, a related-links list and a "You may also like" section', () => {
    const related = `<ul><li><a href="/a">Ten tips for refunds</a></li><li><a href="/b">Why refunds matter</a></li></ul>`;
    const html = page(
      `<article>${prose('First paragraph.')}${prose('Second paragraph.')}${prose('Third paragraph.')}
        ${related}<div class="related-posts"><h3>Related</h3><p>Other refund stories worth reading today.</p></div>
        <h3>You may also like…</h3><p>A story about something else entirely, which goes on and on for a while.</p></article>`,
    );
    const text = extractHtml(html).text;
    expect(text.split('\n\n').map((b) => b.split('.')[0])).toEqual([
      'First paragraph',
      'Second paragraph',
      'Third paragraph',
    ]);
  });

  it('does not end the article at a "Related: <title>" line in its middle', () => {
    const html = page(`<article>${prose('First.')}${prose('Second.')}${prose('Third.')}
      <p><strong>Related:</strong> <a href="/x">The 15 oddest refunds</a></p>${prose('Fourth.')}</article>`);
    expect(extractHtml(html).text).toContain('Fourth.');
  });

  it('reads a malformed page nested 20,000 elements deep instead of overflowing the stack', () => {
    const deep = `${'<div><span>'.repeat(10_000)}Deep in the page, the refund limit is $200.${'</span></div>'.repeat(10_000)}`;
    const html = page(`<article>${prose('First.')}${prose('Second.')}${deep}</article>`);
    expect(extractHtml(html).text).toContain('the refund limit is $200.');
  });

  it('drops a byline at the top', () => {
    const html = page(
      `<article><p>By Jane Reporter - 11/18/26</p>${prose('First.')}${prose('Second.')}</article>`,
    );
    expect(extractHtml(html).text.startsWith('First.')).toBe(true);
  });
});

describe('extractHtml: link tables, heading anchors, deep nesting', () => {
  const row = (t: string, notes: string) =>
    `<tr><td><a href="/targets/${t}.html"><code>${t}</code></a></td><td><a href="/notes/${t}">${notes}</a></td></tr>`;
  const table = (rows: string[]) =>
    `<div class="table-wrapper"><table><thead><tr><th>target</th><th>notes</th></tr></thead><tbody>${rows.join('')}</tbody></table></div>`;
  const PAGE = `<html><head><title>Platform Support - The rustc book</title></head><body>
<nav><a href="/">Home</a> <a href="/guide">Guide</a> <a href="/api">API</a></nav>
<main>
<h1 id="platform-support"><a class="header" href="#platform-support">Platform Support</a></h1>
<p>Support for different platforms ("targets") is organized into three tiers, each with a different set of guarantees.</p>
<h2 id="tier-1">Tier 1 with Host Tools<a class="headerlink" href="#tier-1" title="Permalink to this headline">¶</a></h2>
<p>Tier 1 targets can be thought of as "guaranteed to work", and the project builds and tests them on every change.</p>
${table([row('aarch64-unknown-linux-gnu', 'ARM64 Linux'), row('x86_64-pc-windows-msvc', '64-bit MSVC'), row('x86_64-unknown-linux-gnu', '64-bit Linux')])}
<h2 id="tier-2">Tier 2 with Host Tools<a href="#tier-2">#</a></h2>
${table([row('arm-unknown-linux-gnueabi', 'Armv6 Linux'), row('powerpc-unknown-linux-gnu', 'PowerPC Linux'), row('riscv64gc-unknown-linux-gnu', 'RISC-V Linux')])}
<h2 id="tier-3">Tier 3</h2>
${table([row('aarch64-unknown-hermit', 'ARM64 Hermit'), row('mipsel-sony-psp', 'MIPS PSP'), row('x86_64-unknown-haiku', 'Haiku')])}
</main><footer><a href="/privacy">Privacy</a></footer></body></html>`;

  it('keeps data tables whose cells are links (as links), and leaves permalink marks out of headings', () => {
    const { title, text } = extractHtml(PAGE);
    expect(title).toBe('Platform Support - The rustc book');
    for (const target of ['aarch64-unknown-linux-gnu', 'riscv64gc-unknown-linux-gnu', 'mipsel-sony-psp'])
      expect(text).toContain(`| [${target}](/targets/${target}.html) |`);
    expect(text).toContain('## Tier 1 with Host Tools\n');
    expect(text).toContain('## Tier 2 with Host Tools\n');
    expect(text).not.toMatch(/¶|Tools#/);
    expect(text).not.toContain('Privacy');
  });

  it('reads text nested 100,000 elements deep, closed or left open', () => {
    const words = 'This paragraph sits at the bottom of a page nested one hundred thousand elements deep.';
    const open = `<html><body>${'<div>'.repeat(100_000)}<p>${words}</p>`;
    expect(extractHtml(open).text).toBe(words);
    expect(extractHtml(`${open}${'</div>'.repeat(100_000)}</body></html>`).text).toBe(words);
  });
});
