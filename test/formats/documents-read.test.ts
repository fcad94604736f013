import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { FormatError } from '../../src/formats/errors.js';
import {
  firstLine,
  MAX_FILE_BYTES,
  maxDocumentBytes,
  readDocumentFile,
} from '../../src/research/documents/read.js';
import { fileReader } from '../../src/research/documents/readers.js';
import { makeDocx } from '../support/make-docx.js';

// What research and `agent read` get from a local file: read whole, titled from the document itself
// (never its file name while it has any text), refused above the size limit with how to raise it.

const dir = mkdtempSync(join(tmpdir(), 'agent-documents-'));
const file = (name: string, data: string | Buffer) => {
  const path = join(dir, name);
  writeFileSync(path, data);
  return path;
};

afterEach(() => vi.unstubAllEnvs());

describe('titles of local documents', () => {
  it('HTML: <title>, else the first heading, else the first line of text', async () => {
    const title = async (html: string) => (await readDocumentFile(file('page.html', html))).title;
    expect(await title('<title>Refunds</title><h2>Limits</h2><p>Up to $200.</p>')).toBe('Refunds');
    expect(await title('<h3>2.1 Limits</h3><p>Up to $200.</p>')).toBe('2.1 Limits');
    expect(await title('<p><b>Refund limits</b></p><p>Up to $200.</p>')).toBe('Refund limits');
    expect(await title('<p>See <a href="p.html">the policy</a> first.</p>')).toBe('See the policy first.');
  });

  it("DOCX: properties, Title or heading, else a bold pseudo-heading or first line, not the file's name", async () => {
    const read = (blocks: Parameters<typeof makeDocx>[0]) =>
      readDocumentFile(file('homework.docx', makeDocx(blocks)));
    expect(
      (await read([{ runs: [{ text: 'Homework 3: regression', bold: true }] }, { paragraph: 'Question 1.' }]))
        .title,
    ).toBe('Homework 3: regression');
    expect((await read([{ paragraph: 'Question 1. Fit a line.' }])).title).toBe('Question 1. Fit a line.');
  });

  it('firstLine skips tables, code and notes, and strips Markdown marks', () => {
    expect(firstLine('| a | b |\n| --- | --- |\n\n```\ncode\n```\n\n> **Quoted** [text](x.html)')).toBe(
      'Quoted text',
    );
    expect(firstLine('[^1]: Note.\n\n- \\# item')).toBe('# item');
    expect(firstLine('| only | table |')).toBeUndefined();
  });
});

describe('the size limit (--max-size, AGENT_MAX_DOCUMENT_MB)', () => {
  const notes = file('notes.txt', 'Refunds go to the card. '.repeat(10_000)); // 240,000 bytes

  it('is 50 MiB unless AGENT_MAX_DOCUMENT_MB says otherwise, in MiB; a typo is a ConfigError', () => {
    expect(maxDocumentBytes({})).toBe(50 * 2 ** 20);
    expect(MAX_FILE_BYTES).toBe(50 * 2 ** 20);
    expect(maxDocumentBytes({ AGENT_MAX_DOCUMENT_MB: '200' })).toBe(200 * 2 ** 20);
    expect(maxDocumentBytes({ AGENT_MAX_DOCUMENT_MB: ' 0.5 ' })).toBe(2 ** 19);
    for (const bad of ['0', '-1', '200MB', '1e3', 'lots'])
      expect(() => maxDocumentBytes({ AGENT_MAX_DOCUMENT_MB: bad })).toThrow(ConfigError);
  });

  it('refuses a larger file, saying the limit and the size in MiB and how to raise it', async () => {
    const error = await readDocumentFile(notes, { maxBytes: 0.1 * 2 ** 20 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FormatError);
    expect((error as Error).message).toBe(
      'larger than the 0.1 MiB limit (0.2 MiB); raise it with AGENT_MAX_DOCUMENT_MB (MiB) or agent read --max-size',
    );
    vi.stubEnv('AGENT_MAX_DOCUMENT_MB', '0.1');
    await expect(readDocumentFile(notes)).rejects.toThrow(/0\.1 MiB limit/);
    vi.stubEnv('AGENT_MAX_DOCUMENT_MB', '1');
    expect((await readDocumentFile(notes)).kind).toBe('text');
  });

  it('stops indexing at once on a bad AGENT_MAX_DOCUMENT_MB rather than skipping every file', () => {
    vi.stubEnv('AGENT_MAX_DOCUMENT_MB', '50MB');
    expect(() => fileReader(1000)).toThrow(/AGENT_MAX_DOCUMENT_MB=50MB is not a size/);
  });
});
