import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

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

// A variable, so TypeScript does not look for type declarations the worker build does not ship.
const WORKER: string = 'pdfjs-dist/legacy/build/pdf.worker.mjs';

let pdfjs: Promise<PdfJs & { parser: WorkerHalf }> | undefined;

/**
 * pdf.js on first use. Two of its import-time side effects are undone: in Node it loads a native canvas
 * library (half a second of start-up, used only to draw pages), and its bundled polyfills replace
 * Array.prototype.push and JSON.parse/stringify, which Node 20 has natively, with slower copies for the
 * whole process.
 */
export function loadPdfJs(): Promise<PdfJs & { parser: WorkerHalf }> {
  pdfjs ??= (async () => {
    const require = createRequire(import.meta.url);
    const Module = require('node:module') as { _load: (request: string, ...rest: unknown[]) => unknown };
    const load = Module._load;
    const { push } = Array.prototype;
    const { parse, stringify } = JSON;
    Module._load = function (request, ...rest) {
      return request === '@napi-rs/canvas' ? NO_CANVAS : load.call(this, request, ...rest);
    };
    try {
      const api = await import('pdfjs-dist/legacy/build/pdf.mjs');
      // The parser runs in this thread (Node has no web worker); loaded now, inside the same guard.
      const parser = (await import(WORKER)) as WorkerHalf;
      // Found there by pdf.js's own in-thread channel, should it be used (see openPdf).
      (globalThis as { pdfjsWorker?: unknown }).pdfjsWorker = parser;
      return { ...api, parser };
    } finally {
      Module._load = load;
      Object.defineProperty(Array.prototype, 'push', { value: push, writable: true, configurable: true });
      Object.assign(JSON, { parse, stringify });
    }
  })();
  return pdfjs;
}

// CJK fonts need Adobe's CMaps and the 14 standard fonts need their metrics; pdf.js reads both from disk
// in Node (a path with a trailing slash), and only when a document uses them.
let assets: { cMapUrl: string; standardFontDataUrl: string } | undefined;
export function assetPaths() {
  if (!assets) {
    const root = dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));
    assets = { cMapUrl: `${join(root, 'cmaps')}/`, standardFontDataUrl: `${join(root, 'standard_fonts')}/` };
  }
  return assets;
}
