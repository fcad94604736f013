/// <reference lib="dom" />
import { existsSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderHtml } from '../../src/report/html.js';
import { CHROMIUM_ARGS, findChromium, HOW_TO_INSTALL } from './chromium.js';
import { savedRun, XSS_TITLE } from './run-fixture.js';

// The HTML report in a real Chromium, opened from disk with every network request blocked.

const executablePath = findChromium();
if (!executablePath) console.warn(HOW_TO_INSTALL);

describe.skipIf(!executablePath)('the HTML report in Chromium', () => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-report-browser-'));
  const file = join(dir, 'report.html');
  const url = pathToFileURL(file).href;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const requests: string[] = [];
  const consoleErrors: string[] = [];
  const dialogs: string[] = [];

  beforeAll(async () => {
    writeFileSync(file, renderHtml(savedRun()));
    browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
    context = await browser.newContext({ viewport: { width: 1024, height: 800 } });
    // Every request is recorded and, unless it is the page itself, refused.
    await context.route('**/*', (route) => {
      requests.push(route.request().url());
      return route.request().url() === url ? route.continue() : route.abort();
    });
    page = await context.newPage();
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text());
    });
    page.on('pageerror', (e) => consoleErrors.push(e.message));
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    await page.goto(url);
  });
  afterAll(async () => {
    await browser?.close();
  });

  const visible = (selector: string) => page.locator(selector).isVisible();

  it('loads with no request to anywhere, no console error and no dialog', async () => {
    expect(requests).toEqual([url]);
    expect(consoleErrors).toEqual([]);
    expect(dialogs).toEqual([]);
  });

  it('renders markup from sources and the report as text', async () => {
    expect(await page.locator('#src-3 strong').textContent()).toBe(XSS_TITLE);
    expect(await page.locator('img, script').count()).toBe(0);
    expect(await page.locator('main').textContent()).toContain(
      'finance desk <script>alert("report")</script>',
    );
    expect(dialogs).toEqual([]);
  });

  it('shows a citation evidence on hover and on keyboard focus, and hides it again', async () => {
    const evidence = page.locator('#ev-1');
    expect(await evidence.isVisible()).toBe(false);
    await page.hover('#cite-1');
    expect(await evidence.isVisible()).toBe(true);
    expect(await evidence.textContent()).toContain('A team lead approves refunds up to $500.');
    await page.mouse.move(0, 0);
    expect(await evidence.isVisible()).toBe(false);

    // Reached by Tab from the top of the page, as a keyboard user would.
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    let presses = 0;
    while ((await page.evaluate(() => document.activeElement?.id)) !== 'cite-0' && presses++ < 20)
      await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('cite-0');
    expect(await visible('#ev-0')).toBe(true);
    expect(await page.locator('#ev-0').textContent()).toContain('Refunds › Limits');
    // The link to the quote inside the popover is the next stop, and the popover stays open on it.
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Open at the quote');
    expect(await visible('#ev-1')).toBe(true);
    // Screen readers get the evidence as the link's description.
    expect(await page.locator('#cite-1').getAttribute('aria-describedby')).toBe('ev-1');
    expect(await page.locator('#ev-1').getAttribute('role')).toBe('tooltip');
  });

  it('takes every [n] to its source entry', async () => {
    const cites = await page.locator('a.cite').evaluateAll((as) => as.map((a) => [a.id, a.textContent!]));
    expect(cites.length).toBe(11);
    for (const [id, text] of cites) {
      await page.focus(`#${id}`);
      await page.keyboard.press('Enter');
      const n = text!.slice(1, -1);
      expect(await page.evaluate(() => location.hash)).toBe(`#src-${n}`);
      const [top, height] = await page.evaluate((n) => {
        const r = document.getElementById(`src-${n}`)!.getBoundingClientRect();
        return [Math.round(r.top), innerHeight];
      }, n);
      expect(top, `[${n}] scrolled into view`).toBeGreaterThanOrEqual(0);
      expect(top, `[${n}] scrolled into view`).toBeLessThan(height!);
    }
    await page.mouse.click(5, 5);
    await page.goto(url);
  });

  it('marks flagged sentences and gives the reason on focus', async () => {
    expect(await page.locator('mark.flag').count()).toBeGreaterThanOrEqual(3);
    const [mark, body] = await page.evaluate(() => [
      getComputedStyle(document.querySelector('mark.flag')!).backgroundColor,
      getComputedStyle(document.body).backgroundColor,
    ]);
    expect(mark).not.toBe(body);
    await page.focus('#flagged-1');
    expect(await page.locator('#fr-1').textContent()).toBe(
      'Unsupported. No source mentions a finance desk <script>.',
    );
    expect(await page.locator('#flags-title').isVisible()).toBe(true);
    expect(await page.locator('ul.flags > li').count()).toBe(3);
  });

  it('has readable contrast in light and dark', async () => {
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      const ratios = await page.evaluate(() => {
        const rgb = (c: string) => (c.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).map(Number);
        const lum = (c: string) => {
          const [r, g, b] = rgb(c).map((v) => {
            const s = v / 255;
            return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
          });
          return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
        };
        const ratio = (a: string, b: string) => {
          const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
          return (x! + 0.05) / (y! + 0.05);
        };
        const bg = getComputedStyle(document.body).backgroundColor;
        const color = (s: string) => getComputedStyle(document.querySelector(s)!).color;
        const mark = getComputedStyle(document.querySelector('mark.flag')!);
        return {
          body: ratio(color('main p'), bg),
          link: ratio(color('a.cite'), bg),
          muted: ratio(color('.meta'), bg),
          mark: ratio(mark.color, mark.backgroundColor),
        };
      });
      for (const [what, r] of Object.entries(ratios))
        expect(r, `${colorScheme} ${what}`).toBeGreaterThanOrEqual(4.5);
    }
    await page.emulateMedia({ colorScheme: 'light' });
  });

  it('fits a 390 px wide screen without horizontal scrolling, popover open or not', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - innerWidth);
    expect(await overflow()).toBeLessThanOrEqual(0);
    await page.focus('#cite-6'); // in the table's last column
    expect(await visible('#ev-6')).toBe(true);
    expect(await overflow()).toBeLessThanOrEqual(0);
    await page.screenshot({ path: join(dir, 'narrow.png'), fullPage: true });
    expect(statSync(join(dir, 'narrow.png')).size).toBeGreaterThan(10_000);
    await page.setViewportSize({ width: 1024, height: 800 });
  });

  it('never breaks a table header inside its word on a phone ("Sour/ce")', async () => {
    const table = [
      '| Region | Levy per night for a standard double room in the city centre | Source |',
      '| --- | --- | --- |',
      '| Most cities | $200 before taxes, more in the high season and on event weekends | [1] |',
    ].join('\n');
    const narrow = await browser.newPage({ viewport: { width: 360, height: 740 } });
    await narrow.setContent(renderHtml({ question: 'Levies?', answer: table, sources: [] }));
    const broken = await narrow.evaluate(() =>
      Array.from(document.querySelectorAll('th'))
        .filter((th) => {
          const range = document.createRange();
          range.selectNodeContents(th);
          const lines = new Set(Array.from(range.getClientRects()).map((r) => Math.round(r.top))).size;
          return lines > 1 && !th.textContent?.trim().includes(' ');
        })
        .map((th) => th.textContent),
    );
    await narrow.close();
    expect(broken).toEqual([]);
  });

  it('prints without popovers or flag markers, citations as superscripts', async () => {
    await page.emulateMedia({ media: 'print' });
    await page.focus('#cite-1');
    expect(await visible('#ev-1')).toBe(false);
    expect(await visible('#flagged-0')).toBe(false);
    expect(await page.locator('#cite-1').evaluate((a) => getComputedStyle(a).verticalAlign)).toBe('super');
    expect(await page.locator('#src-2 a').textContent()).toBe('https://docs.example.com/policy/2?a=1&b=2');
    await page.emulateMedia({ media: 'screen' });
    expect(await visible('#ev-1')).toBe(true);
  });

  it('writes light and dark screenshots', async () => {
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      await page.screenshot({ path: join(dir, `${colorScheme}.png`) });
    }
    const [light, dark] = await page
      .evaluate(() => getComputedStyle(document.body).backgroundColor)
      .then(async (dark) => [
        await (async () => {
          await page.emulateMedia({ colorScheme: 'light' });
          return page.evaluate(() => getComputedStyle(document.body).backgroundColor);
        })(),
        dark,
      ]);
    expect(light).not.toBe(dark);
    for (const name of ['light.png', 'dark.png', 'narrow.png'])
      expect(existsSync(join(dir, name))).toBe(true);
    // Nothing the page did while tested reached the network either.
    expect(requests.every((r) => r === url)).toBe(true);
    expect(consoleErrors).toEqual([]);
  });
});
