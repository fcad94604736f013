import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { extractHtml, readHtmlDocument } from '../../../src/formats/html/html-to-text.js';

// Local HTML manuals as Debian ships them (test/fixtures/documents/SOURCES.md): each is read whole, with
// its headings, links and footnotes, titled from its <title>, without its navigation bars. Before, the
// web page heuristics cut them down (base-passwd's guide to 986 of its 2,254 words).

const read = (name: string) =>
  readHtmlDocument(readFileSync(new URL(`../../fixtures/documents/${name}`, import.meta.url), 'utf8'));
const words = (text: string) => text.split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w)).length;
const headings = (text: string) => text.match(/^#{1,6} .+$/gm) ?? [];

describe('local HTML manuals are read whole', () => {
  it("base-passwd's guide (SGML DocBook): chapter 1 and the list of groups with no user", () => {
    const { title, text } = read('base-passwd-users-and-groups.html');
    expect(title).toBe('Users and Groups in the Debian System');
    // pandoc's plain text of the same file has 2,266 words.
    expect(words(text)).toBeGreaterThan(2200);
    expect(headings(text)).toContain('# Chapter 1. Introduction');
    expect(text).toContain('The Debian base-passwd package contains the master versions of `/etc/passwd`');
    expect(text).toMatch(
      /Other groups have no associated user\.\n\nadm\n {2}Group adm is used for system monitoring tasks\./,
    );
  });

  it("libffi's The Basics (Texinfo): its opening and ffi_prep_cif, without the Next/Previous bars", () => {
    const { title, text } = read('libffi-the-basics.html');
    expect(title).toBe('The Basics (libffi: the portable foreign function interface library)');
    expect(
      text.startsWith('### 2.1 The Basics\n\n`libffi` assumes that you have a pointer to the function'),
    ).toBe(true);
    expect(text).toContain('ffi_prep_cif (ffi_cif *cif, ffi_abi abi');
    expect(text).toContain('This initializes cif according to the given parameters.');
    expect(text).toContain('See [Types](Types.html).');
    expect(text).not.toMatch(/Next:|Previous:|¶/);
  });

  it("PostgreSQL's numeric types (XSL DocBook): 8.1, 8.1.1 and 8.1.4 headings, titled from <title>", () => {
    const { title, text } = read('postgresql-datatype-numeric.html');
    expect(title).toBe('8.1. Numeric Types');
    expect(headings(text).slice(0, 3)).toEqual([
      '## 8.1. Numeric Types',
      '### 8.1.1. Integer Types',
      '### 8.1.4. Serial Types',
    ]);
    expect(text).toContain('| Name | Storage Size | Description | Range |');
    expect(text).toContain('| smallint | 2 bytes | small-range integer | -32768 to +32767 |');
    expect(text).toContain('[Section 4.1.2](sql-syntax-lexical.html#SQL-SYNTAX-CONSTANTS)');
    expect(text).not.toMatch(/\bPrev\b|\bHome\b/);
  });

  it("git-rebase's manual page (AsciiDoc): titled from its <h1>, not SYNOPSIS; its NAME section kept", () => {
    const { title, text } = read('git-rebase.html');
    expect(title).toBe('git-rebase(1) Manual Page');
    expect(text).toContain(
      '## NAME\n\ngit-rebase - Reapply commits on top of another base tip\n\n## SYNOPSIS',
    );
    expect(text).toContain('(see [git-config(1)](git-config.html) for details)');
  });

  it("Python's csv page (Sphinx): PEP 305's link, the footnote as a footnote, no sidebar", () => {
    const { title, text } = read('python-csv.html');
    // The <title> adds " — Python 3.11.2 documentation" to the page's <h1>.
    expect(title).toBe('csv — CSV File Reading and Writing');
    expect(text).toContain('[**PEP 305**](https://peps.python.org/pep-0305/) - CSV File API');
    expect(text).toContain("it should be opened with `newline=''`. [^1] An optional *dialect*");
    const notes = text.match(/^\[\^.+$/gm) ?? [];
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(
      /^\[\^1\]: If `newline=''` is not specified, newlines embedded inside quoted fields/,
    );
    expect(notes[0]).toContain('([universal](../glossary.html#term-universal-newlines)) newline handling.');
    expect(text).not.toMatch(/Previous topic|Quick search|Show Source/);
  });

  it('Debian Reference chapter 3 (XSL DocBook): "3.2.1. The hostname" and its table of contents', () => {
    const { title, text } = read('debian-reference-ch03.html');
    expect(title).toBe('Chapter 3. The system initialization');
    expect(headings(text)).toContain('### 3.2.1. The hostname');
    expect(text).toContain('The kernel maintains the system **hostname**.');
    expect(text).toContain('[3.2.1. The hostname](ch03.en.html#_the_hostname)');
    expect(text).not.toMatch(/\bPrev\b|\bNext\b/);
  });
});

describe('the same manual pages read as web pages', () => {
  const page = (name: string) =>
    extractHtml(
      readFileSync(new URL(`../../fixtures/documents/${name}`, import.meta.url), 'utf8'),
      `https://docs.example/${name}`,
    );

  it("keeps the Python csv page's footnote and PEP 305's link on the web path too", () => {
    const { text } = page('python-csv.html');
    expect(text).toContain('[**PEP 305**](https://peps.python.org/pep-0305/) - CSV File API');
    expect(text).toMatch(/\n\n\[\^1\]: If `newline=''` is not specified/);
    expect(text).not.toMatch(/Previous topic|Quick search/);
  });
});
