import { chromium } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { readPdf } from '../../../src/formats/pdf/index.js';
import { CHROMIUM_ARGS, findChromium, HOW_TO_INSTALL } from '../../report/chromium.js';

// A page printed to PDF by Chromium, as people save web pages and documentation: fonts embedded and
// subset by Skia, code in the system's monospaced font. Its listing must come out fenced with its
// indentation, its prose as text (skipped where there is no Chromium).

const executablePath = findChromium();
if (!executablePath) console.warn(HOW_TO_INSTALL);

const LISTING = [
  'def backoff(attempt, base=0.5, cap=30.0):',
  '    """Seconds to wait before the next try."""',
  '    delay = min(cap, base * 2 ** attempt)   # doubles each time',
  '    if delay == cap:',
  '        return cap                          # never longer',
  '    return delay',
];

const HTML = `<!doctype html><html><head><meta charset="utf-8"><title>Retrying</title>
<style>body { font-family: serif; font-size: 12pt; margin: 2cm } pre { font-size: 10pt }</style></head>
<body><h1>Retrying a request</h1>
<p>A client that retries at once makes an overloaded server worse. It waits longer after each failure,
up to a limit, and gives up after a few tries; the function below says how long.</p>
<pre>${LISTING.join('\n')}</pre>
<p>The first retry waits half a second, the fifth sixteen seconds, and none waits more than thirty.</p>
</body></html>`;

describe.skipIf(!executablePath)('a page Chromium printed to PDF', () => {
  it('reads its listing as a fenced block with its indentation, and its prose as text', async () => {
    const browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
    let pdf: Buffer;
    try {
      const page = await browser.newPage();
      await page.setContent(HTML);
      pdf = await page.pdf({ format: 'A4' });
    } finally {
      await browser.close();
    }
    const text = (await readPdf(new Uint8Array(pdf))).pages.join('\n\n');
    expect(text).toContain(['```', ...LISTING, '```'].join('\n'));
    expect(text).toMatch(/the function\s+below says how long\.\n\n```\n/);
    expect(text).toMatch(/```\n\nThe first retry waits half a second/);
    expect(text).not.toMatch(/```[^`]*A client that retries/);
  });
});
