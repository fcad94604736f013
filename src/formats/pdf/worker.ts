import { parentPort } from 'node:worker_threads';
import type { OpenPdf } from './document.js';
import { openPdf, readPageLines } from './document.js';
import type { FromWorker, ToWorker } from './protocol.js';

// A reading worker: opens the document it is sent and reads the pages it is asked for, one document at a
// time. Messages are handled strictly in order, so a read never overtakes the open before it.

const port = parentPort!;
let open: OpenPdf | undefined;
let id = 0;
let failed = false;
let bold = false;
let queue = Promise.resolve();

const send = (message: FromWorker) => port.postMessage(message);

async function handle(message: ToWorker): Promise<void> {
  if (message.type === 'open') {
    await open?.close();
    [open, id, failed, bold] = [undefined, message.id, false, message.bold === true];
    try {
      open = await openPdf(message.data);
      send({ type: 'ready', id });
    } catch (error) {
      failed = true;
      send({ type: 'failed', id, message: (error as Error).message });
    }
  } else if (message.type === 'read') {
    if (!open || failed) return;
    for (const n of message.pages) {
      try {
        send({ type: 'page', id, n, lines: await readPageLines(open.doc, n, { bold }) });
      } catch (error) {
        failed = true;
        send({ type: 'failed', id, message: (error as Error).message });
        return;
      }
    }
  } else {
    await open?.close();
    open = undefined;
  }
}

port.on('message', (message: ToWorker) => {
  queue = queue.then(() => handle(message));
});
