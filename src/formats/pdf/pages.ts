import type { Worker } from 'node:worker_threads';
import type { PDFDocumentProxy } from 'pdfjs-dist/types/src/display/api.js';
import { readPageLines } from './document.js';
import type { Line } from './layout.js';
import { releaseWorker, retireWorker, takeWorkers, workerRoom } from './pool.js';
import type { FromWorker } from './protocol.js';

// Reading a document's pages on every core: this thread and a few reading workers take pages from one
// queue, in page order, so whenever reading stops the pages read are the first ones. Workers start only
// for documents long enough to repay starting them, and join when they are ready: this thread does not
// wait for them.

export interface ReadPagesOptions {
  signal?: AbortSignal;
  /** Stop after the page that brings the text to this many characters. */
  maxChars?: number;
  /** Stop after this many milliseconds, with the pages read by then. */
  timeBudgetMs?: number;
  /** The most reading workers to use; by default one per spare core, up to 3. */
  workers?: number;
  /** The worker's script: built code, so the caller says where it is; without one, no workers. */
  workerUrl: URL | undefined;
  /** Whether lines set in bold are marked (for headings where the document has no outline). */
  bold?: boolean;
}

export interface PagesRead {
  /** Lines of the first pages, in order: all of them unless reading stopped early. */
  pages: Line[][];
  stopped?: 'enough' | 'time';
}

/** Pages a worker must be able to read (at least) to be worth its start. */
const PAGES_PER_WORKER = 64;
/** Pages a worker is given ahead, so it never waits for this thread to hand it the next. */
const AHEAD = 4;
/** Pages read before guessing, from their length, how many more `maxChars` will take. */
const SAMPLE = 4;

let reads = 0;

/**
 * Reads pages from the first on, until all are read, `maxChars` is reached or the time budget is spent.
 * A page that cannot be read rejects with pdf.js's error.
 */
export function readPages(doc: PDFDocumentProxy, data: Uint8Array, o: ReadPagesOptions): Promise<PagesRead> {
  const total = doc.numPages;
  const started = performance.now();
  const lines: (Line[] | undefined)[] = [];
  let [read, chars, next] = [0, 0, 1];
  /** Pages given to a worker that failed: read here instead. */
  const retry: number[] = [];
  let stopped: PagesRead['stopped'];
  let failure: { error: unknown } | undefined;
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const waiting: (() => void)[] = [];
  const change = () => {
    for (const wake of waiting.splice(0)) wake();
  };
  const ended = () => stopped !== undefined || failure !== undefined || read === total;
  const end = () => {
    if (ended()) finish();
    change();
  };

  const take = (): number | undefined => {
    if (ended()) return undefined;
    if (retry.length) return retry.shift();
    return next <= total ? next++ : undefined;
  };

  const done = (n: number, pageLines: Line[]) => {
    if (ended()) return;
    lines[n - 1] = pageLines;
    for (; lines[read]; read++) for (const l of lines[read]!) chars += l.text.length + 1;
    if (o.maxChars !== undefined && chars >= o.maxChars) stopped = 'enough';
    if (o.timeBudgetMs !== undefined && read > 0 && performance.now() - started > o.timeBudgetMs)
      stopped ??= 'time';
    if (!workersAsked && (o.maxChars === undefined || read >= SAMPLE)) startWorkers();
    end();
  };
  const fail = (error: unknown) => {
    if (ended()) return; // a page still being read when reading stopped
    failure = { error };
    end();
  };

  // This thread's share, a page at a time: asking pdf.js for several at once costs more CPU than it saves
  // (four at once took a quarter more on the Debian manuals of bench/pdf.mjs).
  const lane = async () => {
    while (!ended()) {
      const n = take();
      if (n === undefined) {
        // Everything is given out: wait, in case a worker fails and its pages come back.
        await new Promise<void>((resolve) => waiting.push(resolve));
        continue;
      }
      try {
        o.signal?.throwIfAborted();
        done(n, await readPageLines(doc, n, { bold: o.bold }));
      } catch (error) {
        fail(o.signal?.aborted ? o.signal.reason : error);
      }
      // pdf.js in this thread answers through promises only: without a turn of the event loop between
      // pages, the workers' pages (and the budget's timer) would wait until this thread had read them all.
      await new Promise((resolve) => setImmediate(resolve));
    }
  };

  // Workers' share.
  let workersAsked = false;
  const id = ++reads;
  const startWorkers = () => {
    workersAsked = true;
    if (ended()) return;
    const left = total - read;
    const pagesLeft =
      o.maxChars === undefined ? left : Math.ceil((o.maxChars - chars) / Math.max(chars / read, 1));
    const n = Math.min(o.workers ?? workerRoom(), Math.floor(Math.min(left, pagesLeft) / PAGES_PER_WORKER));
    if (n > 0 && o.workerUrl) for (const worker of takeWorkers(o.workerUrl, n)) employ(worker);
  };
  const employ = (worker: Worker) => {
    const given = new Set<number>();
    let left = false;
    const feed = () => {
      const pages: number[] = [];
      while (given.size < AHEAD) {
        const n = take();
        if (n === undefined) break;
        given.add(n);
        pages.push(n);
      }
      if (pages.length) worker.postMessage({ type: 'read', pages });
      else if (!given.size) leave(true);
    };
    const onMessage = (m: FromWorker) => {
      if (m.id !== id) return; // a page of an earlier document, read before the worker closed it
      if (m.type === 'ready') feed();
      else if (m.type === 'page') {
        given.delete(m.n);
        done(m.n, m.lines);
        feed();
      } else leave(false);
    };
    const onFailure = () => leave(false);
    const leave = (well: boolean) => {
      if (left) return;
      left = true;
      worker.off('message', onMessage).off('error', onFailure).off('exit', onFailure);
      if (well) releaseWorker(worker);
      else {
        retireWorker(worker);
        retry.push(...[...given].sort((a, b) => a - b));
        given.clear();
        change();
      }
    };
    worker.on('message', onMessage).once('error', onFailure).once('exit', onFailure);
    const copy = new Uint8Array(data);
    // Pages are given once it has the document open: none waits on a worker still starting.
    worker.postMessage({ type: 'open', id, data: copy, bold: o.bold }, [copy.buffer]);
    void finished.then(() => {
      if (given.size === 0) leave(true);
      // Pages still out are not waited for: the worker goes back to the pool once it has sent them, and
      // meanwhile does not keep the process alive.
      else worker.unref();
    });
  };

  const budget =
    o.timeBudgetMs === undefined
      ? undefined
      : setTimeout(() => {
          // Never before the first page: a text of no pages would read as a PDF without text.
          if (read === 0) return;
          stopped ??= 'time';
          end();
        }, o.timeBudgetMs);
  const abort = () => fail(o.signal?.reason);
  o.signal?.addEventListener('abort', abort, { once: true });
  if (o.maxChars === undefined) startWorkers();
  void lane();
  end(); // a document of no pages

  return finished.then(() => {
    clearTimeout(budget);
    o.signal?.removeEventListener('abort', abort);
    if (failure) throw failure.error;
    return { pages: lines.slice(0, read) as Line[][], ...(stopped && read < total ? { stopped } : {}) };
  });
}
