import { expect, it } from 'vitest';
import { firstOf } from '../../src/queue/worker.js';

// A worker's poll waits for a finished job or its interval, whichever comes first; a timer left behind
// kept the process alive after its last job (up to a second per worker at the end of a batch).

const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

it('ends when the event comes first, and leaves no timer behind', async () => {
  const before = timers();
  await firstOf(Promise.resolve(), 60_000);
  expect(timers()).toBe(before);
});

it('ends when the interval passes first', async () => {
  let settle: () => void = () => {};
  const never = new Promise<void>((resolve) => (settle = resolve));
  const started = Date.now();
  await firstOf(never, 20);
  expect(Date.now() - started).toBeGreaterThanOrEqual(15);
  settle();
});
