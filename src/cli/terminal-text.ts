import type { EventEmitter } from 'node:events';
import type { Command } from 'commander';
import { visibleLength } from './markdown/palette.js';
import { wrapLine } from './markdown/wrap.js';

// Help and messages fitted to the terminal, broken at spaces as rendered answers are (markdown/wrap.ts):
// a word is never split. commander wraps its own part of --help (usage, options, commands) to the help
// width, the terminal's columns or else 80; the notes a command adds after its options (addHelpText) are
// wrapped here to the same width. Error messages are wrapped on a terminal only: on a pipe a message
// stays one line, for the program or person reading it.

/** Room a description keeps beside its example; with less it goes under the example instead. */
const DESCRIPTION_ROOM = 24;

/**
 * Notes written as the source holds them (prose lines joined into paragraphs, blank lines between, and
 * indented rows of an example and its description) wrapped to `width`. Prose is refilled; a row keeps
 * its example whole (it must paste as one command) and wraps its description under its own column, or
 * under the example when the column leaves too little room. A width of 0 or less leaves the text as is.
 */
export function wrapNotes(text: string, width: number): string {
  if (!(width > 0)) return text;
  const out: string[] = [];
  let paragraph: string[] = [];
  const flush = () => {
    if (paragraph.length) out.push(wrapLine(paragraph.join(' '), width));
    paragraph = [];
  };
  for (const line of text.split('\n')) {
    if (line.trim() === '') {
      flush();
      out.push(line);
    } else if (/^\s/.test(line)) {
      flush();
      out.push(wrapRow(line, width));
    } else paragraph.push(line.trim());
  }
  flush();
  return out.join('\n');
}

/** An indented row: `  example  description`, or an example alone (never broken). */
function wrapRow(line: string, width: number): string {
  if (visibleLength(line) <= width) return line;
  const row = /^(\s+)(\S.*?)( {2,})(\S.*)$/.exec(line);
  if (!row) return line;
  const [, indent = '', example = '', gap = '', description = ''] = row;
  const lead = indent + example + gap;
  if (width - visibleLength(lead) >= DESCRIPTION_ROOM)
    return wrapLine(description, width, { first: lead, rest: ' '.repeat(visibleLength(lead)) });
  const under = `${indent}    `;
  return `${indent}${example}\n${wrapLine(description, width, { first: under, rest: under })}`;
}

interface HelpEventContext {
  error: boolean;
  command: Command;
  write: (text: string) => void;
}

/** The width commander wraps a command's help to: the terminal's columns, else 80. */
function helpWidth(command: Command, error: boolean): number {
  const output = command.configureOutput();
  return (error ? output.getErrHelpWidth?.() : output.getOutHelpWidth?.()) ?? 80;
}

/**
 * Makes the notes of `command` and of every command under it (addHelpText's text, which commander writes
 * as given) wrap to the help's width. Call it once the program is defined.
 */
export function fitHelpToWidth(command: Command): void {
  // A Command is an EventEmitter (commander's typings leave that out); addHelpText adds a listener.
  const events = command as unknown as EventEmitter;
  for (const event of ['beforeAllHelp', 'beforeHelp', 'afterHelp', 'afterAllHelp']) {
    const listeners = events.listeners(event) as Array<(context: HelpEventContext) => void>;
    if (listeners.length === 0) continue;
    events.removeAllListeners(event);
    events.on(event, (context: HelpEventContext) => {
      let text = '';
      for (const listener of listeners)
        listener({
          ...context,
          write: (s) => {
            text += s;
          },
        });
      context.write(wrapNotes(text, helpWidth(context.command, context.error)));
    });
  }
  for (const sub of command.commands) fitHelpToWidth(sub);
}

/** `text` as it should reach `stream`: wrapped at spaces to a terminal's width, unchanged on a pipe. */
export function fitToTerminal(text: string, stream: { isTTY?: boolean; columns?: number }): string {
  const width = stream.isTTY ? (stream.columns ?? 0) : 0;
  if (!(width > 0)) return text;
  return text
    .split('\n')
    .map((line) => wrapLine(line, width))
    .join('\n');
}
