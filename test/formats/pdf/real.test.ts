import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readPdf } from '../../../src/formats/pdf/index.js';

// Real documents (see test/fixtures/pdf/README.md): what a reader needs from them, checked where
// pdf.js and the layout laws meet typesetting they were not written for.

const fixture = (name: string) => readFileSync(new URL(`../../fixtures/pdf/${name}`, import.meta.url));

describe('readPdf on real documents', () => {
  it('reads a two-column paper column by column under its full-width title and abstract', async () => {
    const { title, pages } = await readPdf(fixture('revtex-apssamp.pdf'));
    expect(title).toBe('Manuscript Title: with Forced Linebreak∗');
    const first = pages[0]!;
    // The left column's sentences run on line after line, never glued to the right column's.
    expect(first).toContain(
      'When commands are referred to in this example file,\nthey are always shown with their required arguments,',
    );
    expect(first).toContain('Line breaks in section headings at all levels can be introduced\nusing');
    expect(first.indexOf('available at http://authors.aps.org/')).toBeLessThan(
      first.indexOf('This file may be formatted in either the preprint or'),
    );
    // The page numbers at the top of pages 2 to 7 are gone.
    for (const page of pages.slice(1)) expect(page.split('\n')[0]).not.toMatch(/^\d+$/);
  });

  it('reads an elsarticle two-column page in order and joins its hyphenated words', async () => {
    const { pages } = await readPdf(fixture('elsarticle-5p.pdf'));
    expect(pages[0]).toContain(
      'Although quadrupole excitons (QE) in cuprous oxide crystals\nare good candidates for BEC due to their narrow line-width',
    );
    expect(pages[0]).toContain('one must consider BEC of the corresponding\nmixed light-matter states');
    expect(pages.join('\n')).not.toMatch(/\p{Ll}-\n\p{Ll}/u);
  });

  it('reads a column of text whole beside a figure, and a table as a table', async () => {
    const { pages } = await readPdf(fixture('apa7-shortsample.pdf'));
    expect(pages[0]).toContain(
      'We begin with Shotton (1989). We can also cite this work\nin parenthesis, like this: (Lassen et al., 2006).',
    );
    expect(pages[0]).toMatch(/^\| Distribution type \| .* \|$/m);
    expect(pages[0]).toContain('# Method\n\n## Participants');
  });
});
