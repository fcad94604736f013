import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { makeDocx } from '../support/make-docx.js';
import { makePdf } from '../support/make-pdf.js';

const dir = mkdtempSync(join(tmpdir(), 'agent-read-'));
const file = (name: string, data: string | Buffer) => {
  const path = join(dir, name);
  writeFileSync(path, data);
  return path;
};

const MANUAL = file(
  'manual.pdf',
  makePdf({
    title: 'Backup manual',
    pages: [
      ['Nightly backups', '# run as root', 'cp agent.db /backup/'],
      ['Restores', 'Copy the file back.'],
    ],
    outline: [
      { title: 'Nightly backups', page: 1 },
      { title: 'Restores', page: 2 },
    ],
  }),
);

let server: Server | undefined;
afterAll(() => server?.close());

describe('agent read', () => {
  it('prints a PDF as Markdown, title first, headings from its outline, a # line not a heading', async () => {
    const r = await runCli(['read', MANUAL]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      '# Backup manual\n\n[Page 1]\n# Nightly backups\n\n\\# run as root\ncp agent.db /backup/\n\n[Page 2]\n# Restores\n\nCopy the file back.\n',
    );
  });

  it('prints JSON with the title, kind, location, page count and text; --max-chars cuts the text', async () => {
    const r = await runCli(['read', MANUAL, '--json', '--max-chars', '40']);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(Object.keys(out)).toEqual(['title', 'kind', 'location', 'pages', 'text']);
    expect(out).toMatchObject({ title: 'Backup manual', kind: 'pdf', location: MANUAL, pages: 2 });
    expect(out.text).toMatch(
      /^\[Page 1\]\n# Nightly backups\n\n\\# run as[\s\S]*\n\[… cut: \d+ more characters not shown\]$/,
    );

    const docx = file('policy.docx', makeDocx([{ heading: 'Refunds' }, { paragraph: 'Up to $200.' }]));
    const word = JSON.parse((await runCli(['read', docx, '--json'])).stdout);
    expect(word).toEqual({
      title: 'Refunds',
      kind: 'docx',
      location: docx,
      pages: null,
      text: '# Refunds\n\nUp to $200.',
    });
  });

  it('reads a URL by the read_url rules, with no 8,000-character cap', async () => {
    const long = `<html><head><title>Guide</title></head><body><article>${'<p>Plenty of words in this paragraph, all of them read. </p>'.repeat(300)}<p>The last line.</p></article></body></html>`;
    server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(long));
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    const url = `http://127.0.0.1:${port}/guide`;
    const r = await runCli(['read', url, '--json'], { env: { AGENT_ALLOW_HOSTS: `127.0.0.1:${port}` } });
    expect(r.stderr).toBe('');
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ title: 'Guide', kind: 'html', location: url, pages: null });
    expect(out.text.length).toBeGreaterThan(8000);
    expect(out.text).toMatch(/The last line\.$/);
    // Without the allowance the same address is refused as private: a usage error.
    const refused = await runCli(['read', url]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^agent: Refused: 127\.0\.0\.1 is .*\n$/);
  });

  it('exits 2 for a missing file or a bad URL, 1 for a document it cannot read, saying why', async () => {
    const missing = await runCli(['read', join(dir, 'nope.pdf')]);
    expect([missing.code, missing.stdout]).toEqual([2, '']);
    expect(missing.stderr).toBe(`agent: No such file: ${join(dir, 'nope.pdf')}\n`);
    const ftp = await runCli(['read', 'ftp://example.com/file.pdf']);
    expect([ftp.code, ftp.stderr]).toEqual([2, 'agent: Only http and https URLs can be read, not ftp:\n']);

    const locked = file('locked.pdf', makePdf({ pages: [['Secret']], encrypted: true }));
    const r = await runCli(['read', locked]);
    expect([r.code, r.stdout]).toEqual([1, '']);
    expect(r.stderr).toBe(
      `agent: ${locked}: the PDF is encrypted (password-protected), so its text cannot be read.\n`,
    );
    const scan = await runCli(['read', file('scan.pdf', makePdf({ pages: [['x']], imageOnly: true }))]);
    expect([scan.code, scan.stderr]).toEqual([
      1,
      expect.stringMatching(/no text layer \(scanned or image-only\)/),
    ]);
    // Some pages readable, some not: the text marks where, stderr says it once, --json carries it.
    const run = (text: string, undecodable = false) =>
      Array.from({ length: 6 }, (_, i) => ({
        text: `${text} line ${i + 1}`,
        x: 72,
        y: 700 - i * 14,
        size: 10,
        undecodable,
      }));
    const mixed = file(
      'mixed.pdf',
      makePdf({ pages: [run('Readable first page'), run('Glyph codes', true), run('Readable last page')] }),
    );
    const partly = await runCli(['read', mixed, '--json']);
    expect(partly.code).toBe(0);
    const json = JSON.parse(partly.stdout);
    expect(json.note).toMatch(/^The text layer of page 2 cannot be decoded .*it would need OCR\.$/);
    expect(json.text).toContain('Readable last page line 1');
    expect(partly.stderr).toBe(`agent: ${mixed}: ${json.note}\n`);
    const odd = await runCli(['read', file('data.xyz', 'text')]);
    expect([odd.code, odd.stderr]).toEqual([
      1,
      expect.stringMatching(/data\.xyz: not a format agent reads \(\.md, /),
    ]);
  });

  it('reads a local HTML file whole (also by file:// URL), titled from its heading, links and footnotes kept', async () => {
    // A page the web heuristics would cut to its <article>: the comments box and the aside are the user's text.
    const html = file(
      'guide.html',
      `<html><head><title>Refund guide — Acme docs</title></head><body>
      <div class="navheader"><a href="prev.html">Prev</a> <a href="next.html">Next</a></div>
      <h1>Refund guide</h1><article><p>Refunds go to the card.<sup><a href="#n1" id="r1">1</a></sup></p></article>
      <div class="comments"><p>See <a href="policy.html">the policy</a> for store credit.</p></div>
      <aside class="sidebar"><h2>Limits</h2><p>Agents refund up to <b>$200</b>.</p></aside>
      <div class="footnotes"><p id="n1"><a href="#r1">1</a> Since 2024.</p></div></body></html>`,
    );
    for (const source of [html, pathToFileURL(html).href]) {
      const r = await runCli(['read', source]);
      expect([r.code, r.stderr]).toEqual([0, '']);
      expect(r.stdout).toBe(
        [
          '# Refund guide',
          '',
          'Refunds go to the card.[^1]',
          '',
          'See [the policy](policy.html) for store credit.',
          '',
          '## Limits',
          '',
          'Agents refund up to **$200**.',
          '',
          '[^1]: Since 2024.',
          '',
        ].join('\n'),
      );
    }
  });

  it('refuses a file over --max-size or AGENT_MAX_DOCUMENT_MB (MiB), saying how to raise the limit', async () => {
    const notes = file('notes.txt', `${'Refunds go to the card. '.repeat(9000)}\n`); // about 0.21 MiB
    const over = await runCli(['read', notes, '--max-size', '0.1']);
    expect([over.code, over.stdout]).toEqual([1, '']);
    expect(over.stderr).toBe(
      `agent: ${notes}: larger than the 0.1 MiB limit (0.2 MiB); raise it with AGENT_MAX_DOCUMENT_MB (MiB) or agent read --max-size.\n`,
    );
    const byEnv = await runCli(['read', notes], { env: { AGENT_MAX_DOCUMENT_MB: '0.1' } });
    expect([byEnv.code, byEnv.stderr]).toEqual([1, over.stderr]);
    // The flag wins over the variable.
    const raised = await runCli(['read', notes, '--max-size', '1'], {
      env: { AGENT_MAX_DOCUMENT_MB: '0.1' },
    });
    expect(raised.code).toBe(0);
    const typo = await runCli(['read', notes], { env: { AGENT_MAX_DOCUMENT_MB: '200MB' } });
    expect([typo.code, typo.stderr]).toEqual([
      2,
      'agent: AGENT_MAX_DOCUMENT_MB=200MB is not a size: expected MiB (2^20 bytes), a number above 0, like 200.\n',
    ]);
    const zero = await runCli(['read', notes, '--max-size', '0']);
    expect(zero.code).toBe(2);
    expect(zero.stderr).toMatch(/--max-size.*expected a size in MiB above 0/);
    const help = await runCli(['read', '--help']);
    expect(help.stdout).toMatch(/--max-size <MiB>\s+read a local file up to this size in MiB/);
    expect(help.stdout).toMatch(/AGENT_MAX_DOCUMENT_MB/);
  });
});
