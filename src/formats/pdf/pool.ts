import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

// Reading workers, kept between documents: starting one (a thread that loads pdf.js) costs as much as
// reading a hundred pages, so a folder of PDFs pays it once. Idle workers do not keep the process alive
// and are ended after a while without work.

/** The most reading workers: a core is left for this thread, which reads pages too. */
const MOST = 3;
const IDLE_MS = 10_000;

const idle: Worker[] = [];
let alive = 0;
let reaper: NodeJS.Timeout | undefined;

/** How many workers this machine can use beside this thread. */
export function workerRoom(): number {
  return Math.max(0, Math.min(availableParallelism() - 1, MOST));
}

function spawn(url: URL): Worker {
  const worker = new Worker(url);
  alive++;
  // A worker that fails is dropped by its reader; this listener keeps the failure from being thrown here.
  worker.on('error', () => {});
  worker.once('exit', () => {
    alive--;
    const i = idle.indexOf(worker);
    if (i >= 0) idle.splice(i, 1);
  });
  return worker;
}

/** Up to `n` workers: idle ones first, then new ones while there is room (or `n` were asked for). */
export function takeWorkers(url: URL, n: number): Worker[] {
  const taken: Worker[] = [];
  while (taken.length < n && idle.length) taken.push(idle.pop()!);
  while (taken.length < n && alive < Math.max(workerRoom(), n)) taken.push(spawn(url));
  for (const worker of taken) worker.ref();
  return taken;
}

/** A worker back in the pool once it has closed its document. */
export function releaseWorker(worker: Worker): void {
  worker.postMessage({ type: 'close' });
  worker.unref();
  idle.push(worker);
  clearTimeout(reaper);
  reaper = setTimeout(() => {
    for (const w of idle.splice(0)) void w.terminate();
  }, IDLE_MS);
  reaper.unref();
}

/** A worker that failed: ended, never handed out again. */
export function retireWorker(worker: Worker): void {
  void worker.terminate();
}
