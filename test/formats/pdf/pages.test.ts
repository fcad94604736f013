import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openPdf } from '../../../src/formats/pdf/document.js';
import { readPdf } from '../../../src/formats/pdf/index.js';
import { readPages } from '../../../src/formats/pdf/pages.js';
import { makePdf } from '../../support/make-pdf.js';

// Long documents: read on worker threads beside this one, and stopped early by a time budget or enough
// text, always with the first pages.

const LINE = 'Each line of this chapter repeats one sentence about the quarterly figures of the team.';
const long = (pages: number) =>
  makePdf({
    title: 'Annual report',
    pages: Array.from({ length: pages }, (_, i) => [`Chapter ${i + 1}`, ...Array(30).fill(LINE)]),
    outline: [
      { title: 'Chapter 1', page: 1 },
      { title: 'Chapter 2', page: 2 },
    ],
  });
const LONG = long(160);

/** The pages handed to reading workers while `run` runs. */
async function pagesGivenToWorkers<T>(run: () => Promise<T>): Promise<{ result: T; given: number[] }> {
  const post = vi.spyOn(Worker.prototype, 'postMessage');
  try {
    const result = await run();
    const given = post.mock.calls.flatMap(([m]) => (m.type === 'read' ? (m.pages as number[]) : []));
    return { result, given };
  } finally {
    post.mockRestore();
  }
}

afterEach(() => vi.restoreAllMocks());

describe('readPdf: long documents', () => {
  it('reads a long PDF on worker threads too, with the same text as this thread alone', async () => {
    const alone = await pagesGivenToWorkers(() => readPdf(LONG, { workers: 0 }));
    expect(alone.given).toEqual([]);
    expect(alone.result.pages).toHaveLength(160);
    expect(alone.result.pages[159]).toMatch(/^Chapter 160\n/);
    expect(alone.result.pages[0]).toMatch(/^# Chapter 1\n\n/);
    // The first read starts the workers; later ones find them ready. On a loaded machine a worker may not
    // get the processor before this thread has read every page: a few reads, and at least one shared.
    await readPdf(LONG, { workers: 2 });
    let given = 0;
    for (let attempt = 0; attempt < 4 && given === 0; attempt++) {
      const shared = await pagesGivenToWorkers(() => readPdf(LONG, { workers: 2 }));
      expect(shared.result).toEqual(alone.result);
      given = shared.given.length;
    }
    expect(given).toBeGreaterThan(0);
  });

  it('reads a short PDF on this thread only: a worker would cost more than it saves', async () => {
    const { result, given } = await pagesGivenToWorkers(() => readPdf(long(20), { workers: 2 }));
    expect(given).toEqual([]);
    expect(result.pages).toHaveLength(20);
  });

  it('stops when the time budget is spent, with the first pages read, in order', async () => {
    const { pages, pageCount, stopped } = await readPdf(LONG, { timeBudgetMs: 1, workers: 2 });
    expect(stopped).toBe('time');
    expect(pageCount).toBe(160);
    expect(pages.length).toBeGreaterThanOrEqual(1);
    expect(pages.length).toBeLessThan(160);
    for (const [i, page] of pages.entries()) expect(page).toContain(`Chapter ${i + 1}\n`);
  });

  it('stops once it has enough text, without starting a worker for a few pages', async () => {
    const { result, given } = await pagesGivenToWorkers(() => readPdf(LONG, { maxChars: 8000, workers: 2 }));
    expect(result.stopped).toBe('enough');
    expect(result.pages.length).toBeLessThan(10);
    expect(result.pages.join('\n').length).toBeGreaterThanOrEqual(8000);
    expect(given).toEqual([]);
  });

  it('reads every page on this thread when a worker cannot start', async () => {
    const { doc, close } = await openPdf(LONG);
    try {
      const missing = new URL('./no-such-worker.js', import.meta.url);
      const { pages, stopped } = await readPages(doc, LONG, { workers: 2, workerUrl: missing });
      expect(stopped).toBeUndefined();
      expect(pages.map((lines) => lines[0]!.text)).toEqual(
        Array.from({ length: 160 }, (_, i) => `Chapter ${i + 1}`),
      );
    } finally {
      await close();
    }
  });

  it('stops when the caller aborts', async () => {
    const controller = new AbortController();
    const read = readPdf(LONG, { signal: controller.signal, workers: 2 });
    setTimeout(() => controller.abort(new Error('stopped by the user')), 20);
    await expect(read).rejects.toThrow('stopped by the user');
  });
});
