import type { Ora } from 'ora';

/**
 * An ora spinner on stderr, or undefined where one would do harm: not a terminal, or a terminal that
 * reports no width (a bare pty, where ora's redraw arithmetic divides by zero and floods the screen).
 */
export async function createSpinner(stream: NodeJS.WriteStream = process.stderr): Promise<Ora | undefined> {
  if (!stream.isTTY || !(stream.columns > 0)) return undefined;
  const { default: ora } = await import('ora');
  // discardStdin would fight readline for the keyboard in chat.
  return ora({ stream, discardStdin: false, color: 'gray' });
}
