import { colorEnabled } from '../style.js';
import { painter } from './palette.js';
import { MarkdownStream } from './stream.js';

export { MarkdownStream } from './stream.js';

/** Raw Markdown was asked for: `--raw`, or AGENT_RAW set to anything but 0. */
export const rawWanted = (raw: boolean | undefined, env: NodeJS.ProcessEnv = process.env): boolean =>
  raw === true || (env.AGENT_RAW !== undefined && env.AGENT_RAW !== '' && env.AGENT_RAW !== '0');

/**
 * A renderer for Markdown written to `stream`, or undefined when the text must stay exactly the Markdown:
 * not a terminal (a pipe, a file), or raw asked for. NO_COLOR turns the colours off, not the layout.
 */
export function terminalMarkdown(
  stream: NodeJS.WriteStream,
  raw?: boolean,
  env: NodeJS.ProcessEnv = process.env,
): MarkdownStream | undefined {
  if (!stream.isTTY || rawWanted(raw, env)) return undefined;
  // A terminal that reports no width (a bare pty) is left to fold lines itself.
  return new MarkdownStream(
    painter(colorEnabled(stream, env)),
    () => stream.columns || 80,
    () => stream.columns || 0,
  );
}

/** A whole Markdown text as `stream` should show it: rendered on a terminal, as it is otherwise. */
export function renderFor(stream: NodeJS.WriteStream, text: string, raw?: boolean): string {
  const md = terminalMarkdown(stream, raw);
  return md ? md.push(text) + md.end() : text;
}
