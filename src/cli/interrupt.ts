/**
 * Ctrl-C for a command that has to tidy up before it exits: the first press calls `cancel` (the command
 * stops its work, records what it spent, says how to resume and exits 130); a second press, while that is
 * still under way, calls `now` (to clear a spinner line) and exits 130 at once.
 *
 * The listener stays until the returned function removes it, and that is the point: ora hides the cursor
 * through signal-exit, whose own SIGINT listener re-raises the signal (and so kills the process before
 * anything is recorded) whenever it finds itself the only listener. A `process.once` listener is removed
 * before the others run, which is why Ctrl-C on a terminal, where the spinner shows, used to kill the run.
 */
export function onInterrupt(cancel: () => void, now?: () => void): () => void {
  let pressed = 0;
  const listener = () => {
    pressed++;
    if (pressed === 1) {
      cancel();
      return;
    }
    now?.();
    process.exit(130);
  };
  process.on('SIGINT', listener);
  return () => {
    process.off('SIGINT', listener);
  };
}
