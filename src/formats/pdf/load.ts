import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { editParser } from './parser-edits.js';

// Loading pdf.js for text extraction only, without what it loads for drawing pages.

type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');

/** The parser's half of pdf.js: it answers the document's requests over a port. */
export interface WorkerHalf {
  WorkerMessageHandler: { initializeFromPort(port: unknown): void };
}

/** Enough of DOMMatrix for pdf.js's module-level `new DOMMatrix()`; text extraction never draws. */
class NoCanvasMatrix {
  a = 1;
  b = 0;
  c = 0;
  d = 1;
  e = 0;
  f = 0;
}
const NO_CANVAS = { DOMMatrix: NoCanvasMatrix, ImageData: class {}, Path2D: class {} };

const require = createRequire(import.meta.url);

// A variable, so TypeScript does not look for type declarations the worker build does not ship.
const WORKER: string = 'pdfjs-dist/legacy/build/pdf.worker.mjs';

type Loaded = PdfJs & {
  parser: WorkerHalf;
  /** Whether the parser has the edits of parser-edits.ts. */
  edited: boolean;
};

let pdfjs: Promise<Loaded> | undefined;

/**
 * Runs `load` with two of pdf.js's import-time side effects undone: in Node it loads a native canvas
 * library (half a second of start-up, used only to draw pages), and its bundled polyfills replace
 * Array.prototype.push and JSON.parse/stringify, which Node 20 has natively, with slower copies for the
 * whole process.
 */
async function guarded<T>(load: () => Promise<T>): Promise<T> {
  const Module = require('node:module') as { _load: (request: string, ...rest: unknown[]) => unknown };
  const original = Module._load;
  const { push } = Array.prototype;
  const { parse, stringify } = JSON;
  Module._load = function (request, ...rest) {
    return request === '@napi-rs/canvas' ? NO_CANVAS : original.call(this, request, ...rest);
  };
  try {
    return await load();
  } finally {
    Module._load = original;
    Object.defineProperty(Array.prototype, 'push', { value: push, writable: true, configurable: true });
    Object.assign(JSON, { parse, stringify });
  }
}

/** The parser, edited where the edits fit (from a data: URL, the file being read-only), else as shipped. */
async function importParser(): Promise<{ parser: WorkerHalf; edited: boolean }> {
  try {
    const { version } = require('pdfjs-dist/package.json') as { version: string };
    const file = require.resolve(WORKER);
    const source = editParser(readFileSync(file, 'utf8'), version);
    if (source) {
      // Named after its file in stack traces and profiles, not by the data: URL (megabytes long).
      const named = `${source}\n//# sourceURL=${pathToFileURL(file).href}?edited\n`;
      const url = `data:text/javascript;base64,${Buffer.from(named).toString('base64')}`;
      return { parser: (await import(url)) as WorkerHalf, edited: true };
    }
  } catch {
    // The parser as shipped, below.
  }
  return { parser: (await import(WORKER)) as WorkerHalf, edited: false };
}

/** pdf.js on first use, its parser in this thread (Node has no web worker). */
export function loadPdfJs(): Promise<Loaded> {
  pdfjs ??= guarded(async () => {
    const api = await import('pdfjs-dist/legacy/build/pdf.mjs');
    return { ...api, ...(await importParser()) };
  });
  return pdfjs;
}

let stock: Promise<WorkerHalf> | undefined;

/** pdf.js's parser as shipped, without the edits: to check them against (see openPdf). */
export function loadStockParser(): Promise<WorkerHalf> {
  stock ??= guarded(async () => (await import(WORKER)) as WorkerHalf);
  return stock;
}

// CJK fonts need Adobe's CMaps and the 14 standard fonts need their metrics; pdf.js reads both from disk
// in Node (a path with a trailing slash), and only when a document uses them.
let assets: { cMapUrl: string; standardFontDataUrl: string } | undefined;
export function assetPaths() {
  if (!assets) {
    const root = dirname(require.resolve('pdfjs-dist/package.json'));
    assets = { cMapUrl: `${join(root, 'cmaps')}/`, standardFontDataUrl: `${join(root, 'standard_fonts')}/` };
  }
  return assets;
}
