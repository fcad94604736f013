import { afterEach, expect, it, vi } from 'vitest';
import { onInterrupt } from '../../src/cli/interrupt.js';

// Ctrl-C for commands that tidy up first: once to cancel, twice to leave at once; and a listener that
// stays until removed, so that signal-exit (ora's cursor handling) never finds itself alone and kills.

afterEach(() => vi.restoreAllMocks());

it('the first Ctrl-C cancels, the second exits 130 at once', () => {
  const exit = vi.spyOn(process, 'exit').mockImplementation((() => undefined) as never);
  const cancel = vi.fn();
  const now = vi.fn();
  const stop = onInterrupt(cancel, now);
  try {
    process.emit('SIGINT', 'SIGINT');
    expect(cancel).toHaveBeenCalledTimes(1);
    expect(exit).not.toHaveBeenCalled();
    process.emit('SIGINT', 'SIGINT');
    expect(now).toHaveBeenCalledTimes(1);
    expect(exit).toHaveBeenCalledWith(130);
  } finally {
    stop();
  }
});

it('stays a SIGINT listener after the first press, until removed', () => {
  const before = process.listenerCount('SIGINT');
  const stop = onInterrupt(() => {});
  process.emit('SIGINT', 'SIGINT');
  expect(process.listenerCount('SIGINT')).toBe(before + 1);
  stop();
  expect(process.listenerCount('SIGINT')).toBe(before);
});
