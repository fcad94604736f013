import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readDocx } from '../../src/formats/docx.js';
import { FormatError } from '../../src/formats/errors.js';
import { docxEntries, makeDocx, makeZip } from '../support/make-docx.js';

describe('readDocx', () => {
  it('reads headings, paragraphs, lists and a table as Markdown, the table intact', async () => {
    const docx = makeDocx([
      { heading: 'Refunds Policy' },
      { paragraph: 'Support agents may refund orders without approval, up to their limit.' },
      { heading: 'Limits', level: 2 },
      { bullets: ['Refunds go to the original card', ['Store credit on request', ['Never cash']]] },
      { numbered: ['Check the order', 'Refund it'] },
      {
        table: [
          ['Role', 'Limit'],
          ['Agent', '$200'],
          ['Lead | senior', '$1,000'],
        ],
      },
    ]);
    const { title, text } = await readDocx(docx);
    expect(title).toBe('Refunds Policy');
    expect(text).toBe(
      [
        '# Refunds Policy',
        '',
        'Support agents may refund orders without approval, up to their limit.',
        '',
        '## Limits',
        '',
        '- Refunds go to the original card',
        '- Store credit on request',
        '  - Never cash',
        '',
        '1. Check the order',
        '2. Refund it',
        '',
        '| Role | Limit |',
        '| --- | --- |',
        '| Agent | $200 |',
        '| Lead \\| senior | $1,000 |',
      ].join('\n'),
    );
  });

  it('keeps code blocks fenced (their comments are not headings) and terms with their definitions', async () => {
    const docx = makeDocx([
      { heading: 'Backups' },
      { paragraph: 'Run this nightly:' },
      { code: ['# copy the database', 'cp agent.db /backup/', '    # indented too'] },
      { paragraph: '# not a heading either' },
      {
        definitions: [
          ['RPO', 'How much data a restore may lose.'],
          ['RTO', 'How long a restore may take.'],
        ],
      },
    ]);
    const { title, text } = await readDocx(docx);
    expect(title).toBe('Backups');
    expect(text).toBe(
      [
        '# Backups',
        '',
        'Run this nightly:',
        '',
        '```',
        '# copy the database',
        'cp agent.db /backup/',
        '    # indented too',
        '```',
        '',
        '\\# not a heading either',
        '',
        'RPO',
        '  How much data a restore may lose.',
        'RTO',
        '  How long a restore may take.',
      ].join('\n'),
    );
  });

  it("takes the title from a paragraph in Word's Title style", async () => {
    const { title, text } = await readDocx(
      makeDocx([{ title: 'Employee Handbook' }, { heading: 'Leave' }, { paragraph: 'Ask first.' }]),
    );
    expect(title).toBe('Employee Handbook');
    expect(text).toBe('# Employee Handbook\n\n# Leave\n\nAsk first.');
  });

  it('has no title when the document has no heading', async () => {
    const { title, text } = await readDocx(makeDocx([{ paragraph: 'Just a note & nothing more.' }]));
    expect(title).toBeUndefined();
    expect(text).toBe('Just a note & nothing more.');
  });

  it('refuses bytes that are not a zip archive with a FormatError that says so', async () => {
    for (const bytes of [Buffer.from('Refunds: up to $200.\n'), Buffer.alloc(0)]) {
      const error = await readDocx(bytes).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(FormatError);
      expect((error as Error).message).toBe('not a Word document (.docx): the file is not a zip archive');
    }
  });

  it('refuses a zip archive without word/document.xml', async () => {
    const entries = docxEntries([{ paragraph: 'x' }]);
    delete entries['word/document.xml'];
    for (const zip of [makeZip(entries), makeZip({ 'notes.txt': 'hello' })]) {
      const error = await readDocx(zip).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(FormatError);
      expect((error as Error).message).toBe(
        'not a Word document (.docx): the zip archive has no word/document.xml',
      );
    }
  });

  it('refuses a damaged archive and an old .doc file, saying which', async () => {
    const cut = makeDocx([{ paragraph: 'Refunds' }]).subarray(0, 200);
    await expect(readDocx(cut)).rejects.toThrow(
      /^not a Word document \(\.docx\): the zip archive is damaged \(.+\)$/,
    );
    const doc = Buffer.concat([
      Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]),
      Buffer.alloc(512),
    ]);
    await expect(readDocx(doc)).rejects.toThrow(
      'not a Word document (.docx): this is an old-format Word file (.doc) or a password-protected document',
    );
  });
});

describe('readDocx keeps what Word documents carry besides text', () => {
  it('keeps links, bold and italic, quotes and footnotes (without their "↑")', async () => {
    const { text } = await readDocx(
      makeDocx([
        {
          runs: [
            'See ',
            { link: 'the policy', url: 'https://example.com/policy' },
            '.',
            { footnote: 'Since 2024.' },
          ],
        },
        { runs: [{ text: 'Limits by role', bold: true }] },
        { runs: ['Refunds are ', { text: 'never', italic: true }, ' paid in cash.'] },
        { runs: ['Refund first, ask later.'], style: 'Quote' },
      ]),
    );
    expect(text).toBe(
      [
        'See [the policy](https://example.com/policy).[^1]',
        '',
        '**Limits by role**',
        '',
        'Refunds are *never* paid in cash.',
        '',
        '> Refund first, ask later.',
        '',
        '[^1]: Since 2024.',
      ].join('\n'),
    );
  });

  it('nests a list under a numbered item so that Markdown nests it too (indented past "2. ")', async () => {
    const { text } = await readDocx(
      makeDocx([{ numbered: ['Open', ['Check', ['Card', 'Credit']], 'Refund'] }]),
    );
    expect(text).toBe('1. Open\n2. Check\n   1. Card\n   2. Credit\n3. Refund');
  });

  it('writes a table with merged cells as one table, a merged value in each row it covers', async () => {
    const { text } = await readDocx(
      makeDocx([
        {
          table: [
            ['Region', 'Role', 'Limit'],
            [{ text: 'EU' }, 'Agent', '$200'],
            [{ mergedAbove: true }, 'Lead', '$1,000'],
            [{ text: 'Total', span: 2 }, '$1,200'],
          ],
        },
      ]),
    );
    expect(text).toBe(
      [
        '| Region | Role | Limit |',
        '| --- | --- | --- |',
        '| EU | Agent | $200 |',
        '| EU | Lead | $1,000 |',
        '| Total |  | $1,200 |',
      ].join('\n'),
    );
  });

  it('titles a document from its properties first, then its Title paragraph or first heading', async () => {
    const blocks = [{ title: 'Handbook' }, { heading: 'Leave' }, { paragraph: 'Ask first.' }] as const;
    expect((await readDocx(makeDocx([...blocks], { title: 'Employee Handbook 2026' }))).title).toBe(
      'Employee Handbook 2026',
    );
    expect((await readDocx(makeDocx([...blocks], { title: '  ' }))).title).toBe('Handbook');
    expect((await readDocx(makeDocx([{ paragraph: 'x' }], { title: 'R&D <plan>' }))).title).toBe(
      'R&D <plan>',
    );
    // Word deflates its parts: the properties are read from a deflated archive too.
    const deflated = makeDocx([{ paragraph: 'Ask first.' }], { title: 'Leave policy', deflate: true });
    expect(await readDocx(deflated)).toEqual({ title: 'Leave policy', text: 'Ask first.' });
  });
});

describe('a Word file written by another program', () => {
  it("reads pandoc's .docx back to the Markdown it was made from", async () => {
    const fixture = (name: string) => new URL(`../fixtures/documents/${name}`, import.meta.url);
    const { title, text } = await readDocx(readFileSync(fixture('pandoc-refund-handbook.docx')));
    expect(title).toBe('Refund handbook');
    expect(text).toBe(
      [
        '# Refund handbook',
        '',
        '# Refunds',
        '',
        'Agents may refund **up to $200** without *approval*.[^1] See [the policy](https://example.com/policy).',
        '',
        '> Refund first, ask later.',
        '>',
        '> — The support lead',
        '',
        '**Limits by role**',
        '',
        '1. Check the order',
        '2. Refund it',
        '   - by card',
        '   - by store credit',
        '     1. under $50',
        '3. Close the ticket',
        '',
        '| Role | Limit |',
        '| --- | --- |',
        '| Agent | $200 |',
        '| Lead | $1,000 |',
        '',
        '[^1]: Since the 2024 policy change.',
        '',
        '    A second paragraph of the note.',
      ].join('\n'),
    );
  });
});
