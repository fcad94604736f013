import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  closeSync,
  ftruncateSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  getDocument,
  listDocuments,
  type RefreshStats,
  refreshIndex,
  searchPassages,
} from '../../../src/research/documents/index.js';
import { ROOT } from '../../support/cli.js';
import { makeDocx } from '../../support/make-docx.js';
import { makePdf, truncatePdf } from '../../support/make-pdf.js';
import { sqliteStoreNow } from '../../support/stores.js';

function folder(files: Record<string, string | Buffer>): string {
  const dir = mkdtempSync(join(tmpdir(), 'agent-formats-'));
  for (const [name, data] of Object.entries(files)) {
    if (name.includes('/')) mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), data);
  }
  return dir;
}

const HTML = `<!doctype html><html><head><title>Intranet · Parking</title></head><body>
<nav><a href="/">Home</a> <a href="/news">News</a></nav>
<main><h1>Visitor Parking</h1><p>Visitors park in bay C after signing in at the front desk with their host.</p>
<h2>Permits</h2><table><tr><th>Permit</th><th>Cost</th></tr><tr><td>Monthly</td><td>$40</td></tr></table></main>
<footer>© Example Corp</footer></body></html>`;

describe('documents in every format', () => {
  it('indexes a PDF, a Word document, an HTML page, Markdown and text, each with its title and text', async () => {
    const dir = folder({
      'policies/expenses.docx': makeDocx([
        { heading: 'Expenses Policy' },
        { paragraph: 'Submit claims within 30 days of the purchase.' },
        { heading: 'Meals', level: 2 },
        {
          table: [
            ['Trip', 'Daily limit'],
            ['Overnight', '$75'],
          ],
        },
      ]),
      'memo.docx': makeDocx([{ paragraph: 'The car park closes at 20:00 on Fridays.' }]),
      'handbook.pdf': makePdf({
        title: 'Support Handbook',
        pages: [
          ['Refunds', 'Agents may refund up to $200 without approval.'],
          ['Escalation', 'Call the duty manager.'],
        ],
      }),
      'scan-notes.pdf': makePdf({ pages: [['Quarterly stock count on the first Monday.']] }),
      'parking.html': HTML,
      'site/untitled.htm':
        '<html><head><title>Canteen hours</title></head><body><p>The canteen opens at 8:00 and closes at 15:00 on weekdays.</p></body></html>',
      'policies/travel.md': '# Travel Policy\n\nTrains are preferred under 500 km.',
      'notes.txt': 'Office plants\nThe plants are watered on Mondays.',
    });
    const store = sqliteStoreNow(':memory:');
    expect(await refreshIndex(store, dir)).toEqual({
      added: 8,
      updated: 0,
      removed: 0,
      unchanged: 0,
      skipped: [],
    });
    expect((await listDocuments(store, dir)).map((d) => [d.slug, d.title])).toEqual([
      ['handbook', 'Support Handbook'], // PDF title metadata
      ['memo', 'The car park closes at 20:00 on Fridays.'], // no heading: its first line, not the file name
      ['notes', 'Office plants'], // a text file's first line
      ['parking', 'Visitor Parking'], // the page's first heading, not its <title>
      ['policies/expenses', 'Expenses Policy'], // the Word document's first heading
      ['policies/travel', 'Travel Policy'],
      ['scan-notes', 'scan-notes.pdf'], // no heading, no metadata: the file name
      ['site/untitled', 'Canteen hours'], // no heading: the HTML title
    ]);
    const pdf = (await getDocument(store, dir, 'handbook'))!;
    expect(pdf.body).toBe(
      '[Page 1]\nRefunds\nAgents may refund up to $200 without approval.\n\n[Page 2]\nEscalation\nCall the duty manager.',
    );
    expect(pdf.path).toBe(join(dir, 'handbook.pdf'));
    // The Word document as Markdown: headings and the table's rows, cells of a row on one line.
    const docx = (await getDocument(store, dir, 'policies/expenses'))!.body;
    expect(docx).toMatch(
      /^# Expenses Policy\n\nSubmit claims within 30 days of the purchase\.\n\n## Meals\n/,
    );
    expect(docx).toMatch(/\| Overnight \| \$75 \|/);
    expect((await searchPassages(store, dir, 'overnight daily limit'))[0]).toMatchObject({
      slug: 'policies/expenses',
      headingPath: 'Expenses Policy > Meals',
    });
    // A local HTML file whole, as Markdown: only its navigation bar left out, the table kept as rows.
    const html = (await getDocument(store, dir, 'parking'))!.body;
    expect(html).toContain('Visitors park in bay C');
    expect(html).toContain('| Monthly | $40 |');
    expect(html).toContain('© Example Corp');
    expect(html).not.toMatch(/Home|News/);
    // Passages know where they are: a PDF passage its page, an HTML one its headings.
    expect((await searchPassages(store, dir, 'duty manager')).map((h) => [h.slug, h.headingPath])).toEqual([
      ['handbook', 'Page 2'],
    ]);
    expect((await searchPassages(store, dir, 'monthly permit cost'))[0]).toMatchObject({
      slug: 'parking',
      headingPath: 'Visitor Parking > Permits',
    });
  });

  it('keeps files that differ only by extension apart: the Markdown keeps the slug, the PDF adds its extension', async () => {
    const dir = folder({
      'travel.pdf': makePdf({ pages: [['Rail travel is booked through the portal.']] }),
      'travel.md': '# Travel\n\nHotels are booked through the portal.',
      'travel.txt': 'Travel notes\nTaxis need a receipt.',
    });
    const store = sqliteStoreNow(':memory:');
    await refreshIndex(store, dir);
    expect((await listDocuments(store, dir)).map((d) => [d.slug, d.path])).toEqual([
      ['travel', join(dir, 'travel.md')],
      ['travel.pdf', join(dir, 'travel.pdf')],
      ['travel.txt', join(dir, 'travel.txt')],
    ]);
  });

  it('reads a changed file again and leaves an unchanged one alone', async () => {
    const dir = folder({
      'a.pdf': makePdf({ pages: [['Version one of the rota.']] }),
      'b.html': HTML,
    });
    const store = sqliteStoreNow(':memory:');
    await refreshIndex(store, dir);
    writeFileSync(join(dir, 'a.pdf'), makePdf({ pages: [['Version two of the rota, with nights.']] }));
    utimesSync(join(dir, 'a.pdf'), new Date(), new Date(Date.now() + 5000));
    expect(await refreshIndex(store, dir)).toEqual({
      added: 0,
      updated: 1,
      removed: 0,
      unchanged: 1,
      skipped: [],
    });
    expect((await getDocument(store, dir, 'a'))!.body).toContain('Version two');
    expect(await searchPassages(store, dir, 'version')).toHaveLength(1);
  });

  it('decodes text saved as UTF-16 or as Windows-1252, with Windows line ends', async () => {
    const dir = folder({
      'utf16.txt': Buffer.concat([
        Buffer.from([0xff, 0xfe]),
        Buffer.from('Menu\r\nCafé crème at 9.', 'utf16le'),
      ]),
      'legacy.md': Buffer.from('# Menu\n\nCaf\xe9 cr\xe8me at 9.', 'latin1'),
      'windows.md': 'Canteen\r\n=======\r\n\r\nSoup on Fridays.\r\n',
      'front.md': '---\ntitle: "Opening hours"\nowner: Facilities\n---\nThe doors open at 7:00.\n',
    });
    const store = sqliteStoreNow(':memory:');
    expect((await refreshIndex(store, dir)).added).toBe(4);
    expect((await getDocument(store, dir, 'utf16'))!.body).toBe('Menu\nCafé crème at 9.');
    expect((await getDocument(store, dir, 'legacy'))!.body).toBe('# Menu\n\nCafé crème at 9.');
    expect(await getDocument(store, dir, 'windows')).toMatchObject({
      title: 'Canteen',
      body: 'Canteen\n=======\n\nSoup on Fridays.\n',
    });
    expect((await searchPassages(store, dir, 'soup'))[0]).toMatchObject({
      headingPath: 'Canteen',
      text: 'Soup on Fridays.',
    });
    expect((await getDocument(store, dir, 'front'))!.title).toBe('Opening hours'); // front matter, not "---"
  });
});

const asNobody = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};

/**
 * Whether that user can load the project at all: a checkout under a private folder (root's home, say)
 * is closed to it, and then the permission test cannot run here.
 */
const projectReadable =
  spawnSync(
    process.execPath,
    ['-e', `require(${JSON.stringify(join(ROOT, 'node_modules', 'better-sqlite3'))})`],
    { ...asNobody, stdio: 'ignore' },
  ).status === 0;

/** Runs a refresh as a user who is not root when the tests run as root, since root reads any file. */
function refreshAsUser(dir: string): RefreshStats {
  const script = `import { refreshIndex } from ${JSON.stringify(join(ROOT, 'dist/research/documents/index.js'))};
import { openStore } from ${JSON.stringify(join(ROOT, 'dist/store/open.js'))};
console.log(JSON.stringify(await refreshIndex(await openStore(':memory:'), process.argv[1])));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script, dir], {
    ...asNobody,
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout) as RefreshStats;
}

describe('files that cannot be read', () => {
  it('are each skipped once with the reason, and the rest is indexed', async () => {
    const dir = folder({
      'good.md': '# Good\n\nThis one is fine.',
      'empty.md': '',
      'blank.txt': '  \n\n ',
      'image.md': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48]),
      'scan.pdf': makePdf({ imageOnly: true, pages: [['unused']] }),
      'locked.pdf': makePdf({ encrypted: true, pages: [['Secret salaries.']] }),
      'cut.pdf': truncatePdf(makePdf({ pages: [['A page.'], ['Another page.']] })),
      'report.docx': 'This is plain text saved with a .docx name.',
      'sub/more.md': '# More\n\nAlso fine.',
    });
    // A folder link back to the content folder, a link to itself, and links that go nowhere.
    symlinkSync(dir, join(dir, 'sub', 'loop'));
    symlinkSync(join(dir, 'self.md'), join(dir, 'self.md'));
    symlinkSync(join(dir, 'missing.md'), join(dir, 'dangling.md'));
    symlinkSync(join(dir, 'missing.png'), join(dir, 'photo.png')); // not a document: not reported
    // Over the size limit (a sparse file: no disk space used).
    const fd = openSync(join(dir, 'huge.txt'), 'w');
    ftruncateSync(fd, 51 * 2 ** 20);
    closeSync(fd);

    const store = sqliteStoreNow(':memory:');
    const stats = await refreshIndex(store, dir);
    expect(stats).toMatchObject({ added: 2, updated: 0, removed: 0, unchanged: 0 });
    expect((await listDocuments(store, dir)).map((d) => d.slug)).toEqual(['good', 'sub/more']);
    const reasons = Object.fromEntries(stats.skipped.map((s) => [s.path, s.reason]));
    expect(stats.skipped).toHaveLength(Object.keys(reasons).length); // once each
    expect(reasons).toEqual({
      'empty.md': 'empty file (0 bytes)',
      'blank.txt': 'no text in it',
      'image.md': 'binary content, not text (it has NUL bytes)',
      'scan.pdf': expect.stringMatching(/^the PDF has no text layer/),
      'locked.pdf': expect.stringMatching(/^the PDF is encrypted/),
      'cut.pdf': expect.stringMatching(/^the PDF is damaged or incomplete/),
      'report.docx': 'not a Word document (.docx): the file is not a zip archive',
      'huge.txt':
        'larger than the 50 MiB limit (51 MiB); raise it with AGENT_MAX_DOCUMENT_MB (MiB) or agent read --max-size',
      'self.md': 'a symbolic link loop',
      'dangling.md': 'a broken symbolic link: its target does not exist',
      'sub/loop': 'a symbolic link loop: it leads back to the content folder',
    });

    // Nothing changed: the same files are reported again (and retried), the good ones not read again.
    const again = await refreshIndex(store, dir);
    expect(again).toMatchObject({ added: 0, unchanged: 2 });
    expect(again.skipped.map((s) => s.path).sort()).toEqual(Object.keys(reasons).sort());

    // A fixed file is picked up on the next run.
    writeFileSync(join(dir, 'empty.md'), '# Now filled\n\nWith text.');
    expect(await refreshIndex(store, dir)).toMatchObject({ added: 1, unchanged: 2 });
    expect((await getDocument(store, dir, 'empty'))!.title).toBe('Now filled');
  });

  it('drops the indexed copy of a file that no longer reads', async () => {
    const dir = folder({ 'a.md': '# A\n\nAlpacas graze.', 'b.md': '# B\n\nBeavers build.' });
    const store = sqliteStoreNow(':memory:');
    await refreshIndex(store, dir);
    writeFileSync(join(dir, 'a.md'), Buffer.from([0, 1, 2, 3]));
    utimesSync(join(dir, 'a.md'), new Date(), new Date(Date.now() + 5000));
    expect(await refreshIndex(store, dir)).toMatchObject({
      removed: 1,
      unchanged: 1,
      skipped: [{ path: 'a.md' }],
    });
    expect(await searchPassages(store, dir, 'alpacas')).toEqual([]);
  });

  it.skipIf(!projectReadable)('skips a file or folder it has no permission to read', () => {
    const dir = folder({
      'open.md': '# Open\n\nReadable.',
      'secret.md': '# Secret\n\nHidden.',
      'vault/x.md': 'x',
    });
    chmodSync(dir, 0o755);
    chmodSync(join(dir, 'open.md'), 0o644);
    chmodSync(join(dir, 'secret.md'), 0o000);
    chmodSync(join(dir, 'vault'), 0o000);
    const stats = refreshAsUser(dir);
    expect(stats.added).toBe(1);
    expect(stats.skipped).toEqual([
      { path: 'vault', reason: 'the folder cannot be read: permission denied' },
      { path: 'secret.md', reason: 'cannot be read: permission denied' },
    ]);
  });
});
