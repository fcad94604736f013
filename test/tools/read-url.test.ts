import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { extractHtml } from '../../src/formats/html/html-to-text.js';
import { formatPage, readUrlTool } from '../../src/tools/read-url.js';
import { safeFetch } from '../../src/web/net/safe-fetch.js';
import { readPage } from '../../src/web/read.js';
import { makePdf, truncatePdf } from '../support/make-pdf.js';

type Handler = Parameters<typeof createServer>[1];
const servers: Server[] = [];

async function serve(handler: Handler): Promise<{ port: number; base: string; hosts: string[] }> {
  const hosts: string[] = [];
  const server = createServer((req, res) => {
    hosts.push(req.headers.host ?? '');
    handler!(req, res);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { port, base: `http://127.0.0.1:${port}`, hosts };
}

afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

const allow = (port: number) => ({ AGENT_ALLOW_HOSTS: `127.0.0.1:${port}` });
const signal = new AbortController().signal;

const ARTICLE = `<!doctype html><html><head><title>Refund rules | Example</title><style>p{color:red}</style>
<script>var tracking = "do not read me";</script></head><body>
<nav><a href="/">Home</a> <a href="/about">About</a></nav>
<header class="site-header"><div class="menu">Products Pricing Blog</div></header>
<article><h1>Refund rules</h1>
<p>Support agents may refund up to $200 without approval, as long as the order is less than 90 days old.</p>
<p>Larger refunds need a team lead, who should answer within one business day, or the request escalates.</p>
<ul><li>Refunds go back to the original payment method.</li><li>Store credit is offered only on request.</li></ul>
</article>
<aside class="sidebar">Related: <a href="/x">Ten tips for refunds</a></aside>
<footer>© 2026 Example Inc. All rights reserved.</footer></body></html>`;

describe('HTML to text', () => {
  it('keeps the main content as light Markdown, drops scripts and boilerplate', () => {
    const { title, text } = extractHtml(ARTICLE);
    expect(title).toBe('Refund rules | Example');
    expect(text.split('\n')).toEqual([
      '# Refund rules',
      '',
      'Support agents may refund up to $200 without approval, as long as the order is less than 90 days old.',
      '',
      'Larger refunds need a team lead, who should answer within one business day, or the request escalates.',
      '',
      '- Refunds go back to the original payment method.',
      '- Store credit is offered only on request.',
    ]);
  });

  it('uses the JSON-LD articleBody when the visible HTML holds only a fragment of a script-rendered article', () => {
    const first =
      'Scientists confirmed water vapour on Europa, one of the moons of Jupiter, using a telescope in Hawaii.';
    const second =
      'The find almost certainly means that the moon has liquid water, an essential ingredient for life.';
    // Broken JSON-LD (a trailing comma), paragraphs glued together: both common in the wild.
    const html = `<html><head><script type="application/ld+json">{"@type": "NewsArticle", "articleBody": "${first}${second}", }</script>
      </head><body><div id="app"><p>Loading the story, please wait.</p></div></body></html>`;
    expect(extractHtml(html).text).toBe(`${first}\n\n${second}`);
  });

  it('joins an article split into same-class parts in different places of the page', () => {
    const para = (t: string) =>
      `<p>${t} ${'It goes on, with detail, for a while, as articles do. '.repeat(5)}</p>`;
    const html = `<html><body>
      <div class="intro-wrap"><div class="story-part">${para('Part one opens the story.')}</div></div>
      <aside class="promo">Subscribe now for $1!</aside>
      <div class="body-wrap"><div class="story-part">${para('Part two continues it.')}${para('Part three adds more.')}</div></div>
      <div class="comments">${para('A reader comments here.')}</div>
    </body></html>`;
    const paragraphs = extractHtml(html).text.split('\n\n');
    expect(paragraphs.map((l) => l.split('.')[0])).toEqual([
      'Part one opens the story',
      'Part two continues it',
      'Part three adds more',
    ]);
  });

  it('drops a byline at the top and a recommendations list at the end', () => {
    const para = (t: string) =>
      `<p>${t} ${'The story goes on with more detail, as stories do. '.repeat(4)}</p>`;
    const html = `<html><body><article>
      <p>By Jane Reporter - 11/18/26 11:04 PM EST</p>
      ${para('First paragraph.')}${para('Second paragraph.')}${para('Third paragraph.')}
      <p>You may also like...</p><p>Ten other stories you will not read</p>
    </article></body></html>`;
    const paragraphs = extractHtml(html).text.split('\n\n');
    expect(paragraphs.map((l) => l.split('.')[0])).toEqual([
      'First paragraph',
      'Second paragraph',
      'Third paragraph',
    ]);
  });

  it('cuts at 8,000 characters with a marker', () => {
    const out = formatPage({ url: 'https://e.com/', title: 'T', text: 'word '.repeat(3000), kind: 'html' });
    expect(out.length).toBeLessThan(8100);
    expect(out.startsWith('T\nhttps://e.com/\n\n')).toBe(true);
    expect(out).toMatch(/\[… cut: \d+ more characters not shown\]$/);
  });
});

describe('read_url', () => {
  it('reads an allowed page: title first, then the text', async () => {
    const s = await serve((_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(ARTICLE),
    );
    const out = await readUrlTool(allow(s.port)).run({ url: `${s.base}/refunds` }, { signal });
    expect(out).toMatch(
      /^Refund rules \| Example\nhttp:\/\/127\.0\.0\.1:\d+\/refunds\n\n# Refund rules\n\nSupport agents may refund up to \$200/,
    );
    expect(out).not.toMatch(/tracking|Products Pricing|All rights reserved/);
  });

  it('refuses loopback unless allowed, before connecting', async () => {
    const s = await serve((_req, res) => res.end('secret'));
    await expect(readUrlTool({}).run({ url: `${s.base}/` }, { signal })).rejects.toThrow(
      /Refused: 127\.0\.0\.1 is a non-public address \(loopback/,
    );
    expect(s.hosts).toEqual([]);
  });

  it('checks every redirect hop like the first, and stops after 5', async () => {
    const s = await serve((req, res) => {
      if (req.url === '/to-metadata')
        res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
      else if (req.url === '/to-localhost') res.writeHead(301, { location: 'http://localhost:1/' }).end();
      else if (req.url?.startsWith('/loop'))
        res.writeHead(302, { location: `/loop${Number(req.url.slice(5) || 0) + 1}` }).end();
      else if (req.url === '/hop') res.writeHead(307, { location: '/final' }).end();
      else res.writeHead(200, { 'content-type': 'text/plain' }).end('arrived');
    });
    const tool = readUrlTool(allow(s.port));
    await expect(tool.run({ url: `${s.base}/to-metadata` }, { signal })).rejects.toThrow(
      /169\.254\.169\.254 is a non-public address \(link-local/,
    );
    await expect(tool.run({ url: `${s.base}/to-localhost` }, { signal })).rejects.toThrow(
      /localhost is a localhost name/,
    );
    await expect(tool.run({ url: `${s.base}/loop` }, { signal })).rejects.toThrow(
      /Too many redirects \(more than 5\)/,
    );
    expect(s.hosts.filter(Boolean).length).toBe(2 + 6);
    expect(await tool.run({ url: `${s.base}/hop` }, { signal })).toMatch(/\/final\n\narrived$/);
  });

  it('checks the resolved address at connect time and connects to the address it checked', async () => {
    const s = await serve((_req, res) =>
      res.writeHead(200, { 'content-type': 'text/plain' }).end('wiki page'),
    );
    const resolver = async (host: string) => {
      if (host === 'rebind.example.com')
        return [
          { address: '93.184.215.14', family: 4 },
          { address: '10.0.0.7', family: 4 },
        ];
      return [{ address: '127.0.0.1', family: 4 }];
    };
    await expect(safeFetch(`http://rebind.example.com:${s.port}/`, { resolver })).rejects.toThrow(
      /rebind\.example\.com resolves to 10\.0\.0\.7, a non-public address \(private/,
    );
    await expect(safeFetch(`http://sneaky.example.com:${s.port}/`, { resolver })).rejects.toThrow(
      /resolves to 127\.0\.0\.1/,
    );
    expect(s.hosts).toEqual([]);
    // An allowed name is exempt: the connection goes where the resolver said, with the name as Host.
    const page = await safeFetch(`http://wiki.corp:${s.port}/`, {
      resolver,
      env: { AGENT_ALLOW_HOSTS: `wiki.corp:${s.port}` },
    });
    expect(page.body.toString()).toBe('wiki page');
    expect(s.hosts).toEqual([`wiki.corp:${s.port}`]);
  });

  it('stops reading at 512 KB instead of downloading the rest', async () => {
    let written = 0;
    let closed = false;
    const s = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(64 * 1024, 'a');
      const pump = () => {
        while (!closed && written < 50 * 1024 * 1024) {
          written += chunk.length;
          if (!res.write(chunk)) return res.once('drain', pump);
        }
        res.end();
      };
      res.on('close', () => {
        closed = true;
      });
      pump();
    });
    const fetched = await safeFetch(`${s.base}/huge`, { env: allow(s.port) });
    expect(fetched.body.length).toBe(512 * 1024);
    expect(fetched.truncated).toBe(true);
    await new Promise((r) => setTimeout(r, 100));
    expect(closed).toBe(true);
    expect(written).toBeLessThan(10 * 1024 * 1024);
  });

  it('inflates a body compressed against our wishes, up to the same cap (a bomb stops there)', async () => {
    const s = await serve((req, res) => {
      if (req.url === '/zstd') return res.writeHead(200, { 'content-encoding': 'zstd' }).end('x');
      const body = req.url === '/bomb' ? Buffer.alloc(50 * 1024 * 1024) : Buffer.from(ARTICLE);
      res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' }).end(gzipSync(body));
    });
    const out = await readUrlTool(allow(s.port)).run({ url: `${s.base}/` }, { signal });
    expect(out).toMatch(/Support agents may refund up to \$200/);
    const bomb = await safeFetch(`${s.base}/bomb`, { env: allow(s.port) });
    expect(bomb.body.length).toBe(512 * 1024);
    expect(bomb.truncated).toBe(true);
    await expect(safeFetch(`${s.base}/zstd`, { env: allow(s.port) })).rejects.toThrow(
      /^The page uses a content encoding read_url cannot read \(zstd\)\.$/,
    );
  });

  it('times out a server that never answers', async () => {
    const s = await serve(() => {});
    await expect(safeFetch(`${s.base}/`, { env: allow(s.port), totalTimeoutMs: 200 })).rejects.toThrow(
      /Timed out/,
    );
  });

  it('decodes the charset from the header or the meta tag', async () => {
    const latin1 = Buffer.from(
      '<html><head><meta charset="iso-8859-1"><title>Caf\xe9</title></head><body><p>Cr\xe8me br\xfbl\xe9e is on the menu every day of the week.</p></body></html>',
      'latin1',
    );
    const s = await serve((req, res) => {
      if (req.url === '/json') res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      else res.writeHead(200, { 'content-type': 'text/html' }).end(latin1);
    });
    const tool = readUrlTool(allow(s.port));
    expect(await tool.run({ url: `${s.base}/` }, { signal })).toMatch(
      /^Café\n.*\n\nCrème brûlée is on the menu/,
    );
    expect(await tool.run({ url: `${s.base}/json` }, { signal })).toMatch(/\{"ok":true\}$/);
  });

  it('refuses a type it cannot read, naming what it can', async () => {
    const s = await serve((_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end('\x89PNG'));
    await expect(readUrlTool(allow(s.port)).run({ url: `${s.base}/logo` }, { signal })).rejects.toThrow(
      /is image\/png, which read_url cannot read; only web pages, PDFs, plain text and JSON\.$/,
    );
  });
});

const HANDBOOK = makePdf({
  title: 'Support handbook',
  pages: [
    ['Refunds', 'Agents may refund up to $200 without approval.', '', 'Team leads approve larger refunds.'],
    ['Escalation', 'Call the duty manager after 6 pm.'],
    ['Contacts', 'support@example.com'],
  ],
});

/** Streams `first`, then filler until the client hangs up or 50 MB went out; counts what was written. */
function endless(res: Parameters<Handler & {}>[1], first: Buffer, filler: Buffer, headers = {}) {
  const sent = { bytes: 0, closed: false };
  res.writeHead(200, headers);
  res.on('close', () => {
    sent.closed = true;
  });
  res.write(first);
  const pump = () => {
    while (!sent.closed && sent.bytes < 50 * 1024 * 1024) {
      sent.bytes += filler.length;
      if (!res.write(filler)) return void res.once('drain', pump);
    }
    res.end();
  };
  pump();
  return sent;
}

describe('read_url on PDFs', () => {
  it('reads a multi-page PDF: the title, then each page after its marker, in order', async () => {
    const s = await serve((_req, res) =>
      res.writeHead(200, { 'content-type': 'application/pdf' }).end(HANDBOOK),
    );
    const out = await readUrlTool(allow(s.port)).run({ url: `${s.base}/handbook` }, { signal });
    expect(out).toBe(
      `Support handbook\n${s.base}/handbook\n\n` +
        '[Page 1]\nRefunds\nAgents may refund up to $200 without approval.\n\nTeam leads approve larger refunds.\n\n' +
        '[Page 2]\nEscalation\nCall the duty manager after 6 pm.\n\n[Page 3]\nContacts\nsupport@example.com',
    );
  });

  it('knows a PDF by its .pdf path or its %PDF- start, whatever type the server claims', async () => {
    const untitled = makePdf({ pages: [['Price list 2026', 'Basic plan: $12 a month.']] });
    const s = await serve((req, res) => {
      if (req.url === '/files/prices.pdf') res.writeHead(200, { 'content-type': 'text/plain' }).end(untitled);
      else if (req.url === '/download?id=7')
        res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(untitled);
      else if (req.url === '/zipped')
        res
          .writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' })
          .end(gzipSync(untitled));
      // A login page served where the PDF was expected is read as the page it is.
      else res.writeHead(200, { 'content-type': 'text/html' }).end(ARTICLE);
    });
    const tool = readUrlTool(allow(s.port));
    for (const path of ['/files/prices.pdf', '/download?id=7', '/zipped']) {
      expect(await tool.run({ url: `${s.base}${path}` }, { signal })).toBe(
        `Price list 2026\n${s.base}${path}\n\n[Page 1]\nPrice list 2026\nBasic plan: $12 a month.`,
      );
    }
    expect(await tool.run({ url: `${s.base}/login.pdf` }, { signal })).toMatch(/^Refund rules \| Example\n/);
  });

  it('says which: encrypted, damaged or incomplete, or without a text layer', async () => {
    const bodies: Record<string, Buffer> = {
      '/locked.pdf': makePdf({ pages: [['Salaries']], encrypted: true }),
      '/cut.pdf': truncatePdf(HANDBOOK),
      '/scan.pdf': makePdf({ pages: [[]], imageOnly: true }),
    };
    const s = await serve((req, res) =>
      res.writeHead(200, { 'content-type': 'application/pdf' }).end(bodies[req.url!]),
    );
    const tool = readUrlTool(allow(s.port));
    const read = (path: string) => tool.run({ url: `${s.base}${path}` }, { signal });
    await expect(read('/locked.pdf')).rejects.toThrow(
      `${s.base}/locked.pdf: The PDF is encrypted (password-protected), so its text cannot be read.`,
    );
    await expect(read('/cut.pdf')).rejects.toThrow(/cut\.pdf: The PDF is damaged or incomplete: /);
    await expect(read('/scan.pdf')).rejects.toThrow(
      /scan\.pdf: The PDF has no text layer \(scanned or image-only\); it would need OCR\.$/,
    );
  });

  it('reads a PDF past the HTML cap whole, and refuses one over 10 MB without parsing part of it', async () => {
    const large = makePdf({ pages: [['Appendix', 'The last figure is 42.']], padBytes: 3 * 1024 * 1024 });
    const huge = makePdf({ pages: [['Too big']], padBytes: 11 * 1024 * 1024 });
    let streamed = { bytes: 0, closed: false };
    const s = await serve((req, res) => {
      const body = req.url === '/large.pdf' ? large : req.url === '/huge.pdf' ? huge : undefined;
      const length = String(body?.length);
      if (body) res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': length }).end(body);
      // No length given: only reading tells, and reading stops just past the cap.
      else streamed = endless(res, Buffer.from('%PDF-1.7\n'), Buffer.alloc(64 * 1024, '%'));
    });
    const tool = readUrlTool(allow(s.port));
    expect(await tool.run({ url: `${s.base}/large.pdf` }, { signal })).toMatch(
      /\[Page 1\]\nAppendix\nThe last figure is 42\.$/,
    );
    await expect(tool.run({ url: `${s.base}/huge.pdf` }, { signal })).rejects.toThrow(
      `${s.base}/huge.pdf is a PDF of ${huge.length.toLocaleString('en-US')} bytes, over the 10 MB (10,485,760 bytes) limit for a PDF; it was not read.`,
    );
    await expect(tool.run({ url: `${s.base}/stream` }, { signal })).rejects.toThrow(
      `${s.base}/stream is a PDF larger than the 10 MB (10,485,760 bytes) limit for a PDF; it was not read.`,
    );
    await new Promise((r) => setTimeout(r, 100));
    expect(streamed.closed).toBe(true);
    expect(streamed.bytes).toBeLessThan(20 * 1024 * 1024);
  });

  it('stops reading a long PDF once it has more text than it shows, and says how many pages it read', async () => {
    const line = 'Each line of this report repeats the same long sentence about quarterly figures.';
    const pdf = makePdf({
      pages: Array.from({ length: 60 }, (_, i) => [`Section ${i + 1}`, ...Array(12).fill(line)]),
    });
    const s = await serve((_req, res) => res.writeHead(200, { 'content-type': 'application/pdf' }).end(pdf));
    const out = await readUrlTool(allow(s.port)).run({ url: `${s.base}/report.pdf` }, { signal });
    const note = /\n\[Read (\d+) of 60 pages: that is more text than is shown\.\]\n\n\[Page 1\]/.exec(out);
    expect(note).not.toBeNull();
    expect(Number(note![1])).toBeGreaterThanOrEqual(8);
    expect(Number(note![1])).toBeLessThan(20);
    expect(out).toContain('[Page 1]\nSection 1\n');
    // Read whole when the caller asks for no limit.
    const page = await readPage(`${s.base}/report.pdf`, { env: allow(s.port), signal });
    expect(page.note).toBeUndefined();
    expect(page.pages).toBe(60);
    expect(page.text).toContain('[Page 60]\nSection 60\n');
  });

  it('stops a long PDF when its time budget (AGENT_PDF_BUDGET_MS) is spent, with the first pages', async () => {
    const line = 'A short line.';
    const pdf = makePdf({ pages: Array.from({ length: 400 }, (_, i) => [`Part ${i + 1}`, line]) });
    const s = await serve((_req, res) => res.writeHead(200, { 'content-type': 'application/pdf' }).end(pdf));
    const env = { ...allow(s.port), AGENT_PDF_BUDGET_MS: '1' };
    const out = await readUrlTool(env).run({ url: `${s.base}/parts.pdf` }, { signal });
    const note = /\n\[Read (\d+) of 400 pages: the 1 ms time budget was spent\.\]\n/.exec(out);
    expect(note).not.toBeNull();
    const read = Number(note![1]);
    expect(read).toBeLessThan(400);
    expect(out).toContain(`[Page ${read}]\nPart ${read}\n`);
    expect(out).not.toContain(`[Page ${read + 1}]`);
  });

  it('refuses an AGENT_PDF_BUDGET_MS that is not milliseconds, when the tool is made', () => {
    for (const bad of ['15s', '0', '-5', '1.5'])
      expect(() => readUrlTool({ AGENT_PDF_BUDGET_MS: bad })).toThrow(
        `AGENT_PDF_BUDGET_MS=${bad} is not a time budget: expected milliseconds, a whole number above 0, like 15000.`,
      );
    expect(() => readUrlTool({ AGENT_PDF_BUDGET_MS: '' })).not.toThrow();
  });

  it('keeps HTML at 512 KB while PDFs may be larger', async () => {
    const para = (text: string) => Buffer.from(`<p>${text} ${'More words follow here. '.repeat(20)}</p>`);
    let sent = { bytes: 0, closed: false };
    const s = await serve((_req, res) => {
      sent = endless(res, Buffer.from('<html><body><article>'), para('Filler paragraph.'), {
        'content-type': 'text/html',
      });
    });
    const page = await readPage(`${s.base}/long`, { env: allow(s.port), signal });
    const bytes = Buffer.byteLength(page.text);
    expect(bytes).toBeGreaterThan(400 * 1024);
    expect(bytes).toBeLessThan(512 * 1024);
    await new Promise((r) => setTimeout(r, 100));
    expect(sent.closed).toBe(true);
    expect(sent.bytes).toBeLessThan(10 * 1024 * 1024);
  });

  it('lets the caller pick a cap per response: a body exactly at it is whole, one byte more is refused', async () => {
    const s = await serve((req, res) => {
      // Chunked (no length), the cap's worth first and the rest after a pause, so reading must go past the
      // cap to tell a whole body from a longer one.
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write(Buffer.alloc(4000, 'a'));
      setTimeout(() => res.end(req.url === '/over' ? 'a' : ''), 50);
    });
    const options = {
      env: allow(s.port),
      limitFor: ({ firstBytes }: { firstBytes: Buffer }) =>
        firstBytes.toString().startsWith('a') ? { maxBytes: 4000, wholeOnly: 'letter' } : undefined,
    };
    expect((await safeFetch(`${s.base}/exact`, options)).body.length).toBe(4000);
    await expect(safeFetch(`${s.base}/over`, options)).rejects.toThrow(
      /\/over is a letter larger than the 3\.9 KB \(4,000 bytes\) limit for a letter; it was not read\.$/,
    );
  });
});
