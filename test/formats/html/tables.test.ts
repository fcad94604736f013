import { describe, expect, it } from 'vitest';
import { htmlToMarkdown } from '../../../src/formats/html/html-to-text.js';

describe('data tables become pipe tables', () => {
  it('writes the header row, a rule, and each row on one line', () => {
    const html = '<table><tr><th>Tier</th><th>Limit</th></tr><tr><td>Agent</td><td>$200</td></tr></table>';
    expect(htmlToMarkdown(html)).toBe('| Tier | Limit |\n| --- | --- |\n| Agent | $200 |');
  });

  it('uses the first row as the header when the table has no <th>', () => {
    const html = `<table><tbody><tr><td>Role</td><td>Refund limit</td></tr>
      <tr><td>Agent</td><td>$200</td></tr><tr><td>Lead</td><td>$1,000</td></tr></tbody></table>`;
    expect(htmlToMarkdown(html)).toBe(
      '| Role | Refund limit |\n| --- | --- |\n| Agent | $200 |\n| Lead | $1,000 |',
    );
  });

  it('escapes | inside cells and puts a cell of several lines or list items on one line', () => {
    const html = `<table><tr><th>Plan</th><th>Includes</th></tr>
      <tr><td>Pro | Team</td><td><p>Chat<br>and email</p></td></tr>
      <tr><td>Basic</td><td><ul><li>Email</li><li>Forum</li></ul></td></tr></table>`;
    expect(htmlToMarkdown(html)).toBe(
      '| Plan | Includes |\n| --- | --- |\n| Pro \\| Team | Chat and email |\n| Basic | Email; Forum |',
    );
  });

  it('keeps the columns in line across colspans and rowspans', () => {
    const html = `<table><tr><th>Role</th><th colspan="2">Limits</th></tr>
      <tr><td rowspan="2">Lead</td><td>Refund</td><td>$1,000</td></tr>
      <tr><td>Credit</td><td>$500</td></tr>
      <tr><td colspan="3">Finance signs above $5,000</td></tr></table>`;
    expect(htmlToMarkdown(html)).toBe(
      [
        '| Role | Limits |  |',
        '| --- | --- | --- |',
        '| Lead | Refund | $1,000 |',
        '| Lead | Credit | $500 |',
        '| Finance signs above $5,000 |  |  |',
      ].join('\n'),
    );
  });

  it('puts the caption above, the footer last, and drops repeats of the header row', () => {
    const html = `<table><caption>Refund limits</caption>
      <thead><tr><th>Role</th><th>Limit</th></tr></thead>
      <tfoot><tr><th>Role</th><th>Limit</th></tr></tfoot>
      <tbody><tr><td>Agent</td><td>$200</td></tr><tr><th>Role</th><th>Limit</th></tr>
      <tr><td>Lead</td><td>$1,000</td></tr></tbody></table>`;
    expect(htmlToMarkdown(html)).toBe(
      'Refund limits\n| Role | Limit |\n| --- | --- |\n| Agent | $200 |\n| Lead | $1,000 |',
    );
  });

  it('leaves the header empty in a table of name/value pairs rather than promoting the first pair', () => {
    const html = '<table><tr><th>Type</th><td>Gadget</td></tr><tr><th>Weight</th><td>2 kg</td></tr></table>';
    expect(htmlToMarkdown(html)).toBe('|  |  |\n| --- | --- |\n| Type | Gadget |\n| Weight | 2 kg |');
  });

  it('writes a title row spanning the whole table as a line above it', () => {
    const html = `<table><tr><th colspan="2">Refund limits (2026)</th></tr><tr><th>Role</th><th>Limit</th></tr>
      <tr><td>Agent</td><td>$200</td></tr></table>`;
    expect(htmlToMarkdown(html)).toBe(
      'Refund limits (2026)\n| Role | Limit |\n| --- | --- |\n| Agent | $200 |',
    );
  });

  it('keeps a table whose cells each hold one paragraph (as Word and wikis write them) as data', () => {
    const html = `<table><tr><td><p>Tier</p></td><td><p>Limit</p></td></tr>
      <tr><td><p>Agent</p></td><td><p>$200</p></td></tr></table>`;
    expect(htmlToMarkdown(html)).toBe('| Tier | Limit |\n| --- | --- |\n| Agent | $200 |');
  });
});

describe('layout tables are flattened into their text', () => {
  const noPipes = (md: string) => expect(md).not.toMatch(/\||---/);

  it('reads a page laid out with a table (sidebar cell, article cell with paragraphs) as blocks', () => {
    const html = `<table><tr><td><a href="/">Home</a><br><a href="/news">News</a></td>
      <td><h2>Refunds</h2><p>Agents refund up to $200.</p><p>Leads approve more.</p></td></tr>
      <tr><td>Left</td><td>© Example</td></tr></table>`;
    const md = htmlToMarkdown(html);
    noPipes(md);
    expect(md).toBe(
      '[Home](/)\n[News](/news)\n\n## Refunds\n\nAgents refund up to $200.\n\nLeads approve more.\n\nLeft\n\n© Example',
    );
  });

  it('flattens nested tables, single-column tables and role="presentation"', () => {
    const nested = `<table><tr><td>Outer</td><td><table><tr><td>A</td><td>B</td></tr>
      <tr><td>C</td><td>D</td></tr></table></td></tr></table>`;
    const md = htmlToMarkdown(nested);
    // The inner table is data of its own; the outer one is only a frame around it.
    expect(md).toBe('Outer\n\n| A | B |\n| --- | --- |\n| C | D |');
    const single = htmlToMarkdown('<table><tr><td>One</td></tr><tr><td>Two</td></tr></table>');
    noPipes(single);
    expect(single).toBe('One\n\nTwo');
    const presentation = htmlToMarkdown(
      '<table role="presentation"><tr><th>Logo</th><th>Menu</th></tr><tr><td>Hi</td><td>There</td></tr></table>',
    );
    noPipes(presentation);
    expect(presentation).toBe('Logo\n\nMenu\n\nHi\n\nThere');
  });

  it('flattens a single row without header cells (a strip of page, not a table of values)', () => {
    const md = htmlToMarkdown(
      '<table><tr><td>Refunds are quick.</td><td>Credit is instant.</td></tr></table>',
    );
    noPipes(md);
    expect(md).toBe('Refunds are quick.\n\nCredit is instant.');
  });
});
