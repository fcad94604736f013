import type { Ora } from 'ora';
import type { LoopEvent } from '../../loop/run-turn.js';
import type { ToolCall } from '../../types.js';
import { type MarkdownStream, terminalMarkdown } from '../markdown/index.js';
import { PartialLine } from '../markdown/partial-line.js';
import { clean, type Style, streamCleaner, styleFor } from '../style.js';

/** A one-line, shortened view of a tool result for the trace. */
export function summarize(text: string, max = 100): string {
  const line = clean(text).replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/**
 * Draws one turn: answer text streams to `out`; tool calls, results and notices go dimmed to `err`;
 * a spinner (terminal only) runs while waiting for the model.
 */
export class TurnRenderer {
  private atLineStart = true;
  private readonly s: Style;
  private readonly dimErr: Style;

  constructor(
    private readonly out: NodeJS.WriteStream,
    private readonly err: NodeJS.WriteStream,
    private readonly spinner?: Ora,
  ) {
    this.s = styleFor(out);
    this.dimErr = styleFor(err);
    this.markdown = terminalMarkdown(out);
    this.partialLine = new PartialLine(out);
  }

  /** Escape sequences in the answer are dropped, even when one is split across two chunks. */
  private readonly cleanStream = streamCleaner();
  /** On a terminal (unless --raw or AGENT_RAW), the reply's Markdown is rendered line by line. */
  private readonly markdown: MarkdownStream | undefined;
  /** Meanwhile the line being written is shown as it comes, and erased when it is drawn. */
  private readonly partialLine: PartialLine;

  handle = (e: LoopEvent): void => {
    switch (e.type) {
      case 'modelCallStart':
        this.spinner?.start(e.turn === 1 ? 'Thinking…' : 'Reading the results…');
        break;
      case 'text':
        this.pause();
        {
          const clean = this.cleanStream(e.delta);
          if (!this.markdown) {
            this.show(clean);
            break;
          }
          const lines = this.markdown.push(clean);
          if (lines) {
            this.partialLine.clear();
            this.show(lines);
          }
          const pending = this.markdown.pending();
          if (pending) this.partialLine.show(pending);
          else this.partialLine.clear();
        }
        break;
      case 'toolRun':
        this.pause();
        // The text before a tool call is complete: what the renderer holds of it is drawn now.
        this.flushMarkdown();
        this.trace(this.dimErr.dim(`  → ${e.call.name} ${JSON.stringify(e.input)}`));
        this.spinner?.start(`Running ${e.call.name}…`);
        break;
      case 'toolResult':
        this.pause();
        this.trace(
          e.result.isError
            ? this.dimErr.red(`  ✗ ${e.call.name}: ${summarize(e.result.content, 160)}`)
            : this.dimErr.dim(`  ← ${summarize(e.result.content)}`),
        );
        break;
      case 'notice':
        this.pause();
        this.trace(this.dimErr.yellow(clean(e.message)));
        break;
    }
  };

  /** Stops the spinner so that a prompt or output can take the line. */
  pause(): void {
    if (this.spinner?.isSpinning) this.spinner.stop();
  }

  private show(text: string): void {
    this.out.write(text);
    if (text) this.atLineStart = text.endsWith('\n');
  }

  /** Draws what the Markdown renderer still holds (a last line, an open table or fence). */
  private flushMarkdown(): void {
    this.partialLine.clear();
    if (this.markdown) this.show(this.markdown.end());
  }

  private trace(line: string): void {
    // The line being written is erased first (the next piece of the reply shows it again).
    this.partialLine.clear();
    // Traces and answer may share a terminal: never start a trace in the middle of an answer line.
    if (!this.atLineStart && this.out.isTTY && this.err.isTTY) {
      this.out.write('\n');
      this.atLineStart = true;
    }
    this.err.write(`${line}\n`);
  }

  /**
   * A line of the chat's own while the turn runs (a line typed ahead was kept): dimmed on `err`, at a
   * line start, and the spinner, if it was turning, goes on turning below it.
   */
  note(line: string): void {
    const spinning = this.spinner?.isSpinning === true;
    if (spinning) this.spinner?.clear();
    this.trace(this.dimErr.dim(line));
    if (spinning) this.spinner?.render();
  }

  /** Stops the spinner and ends a line the answer has begun, so that a prompt can take the next one. */
  endLine(): void {
    this.pause();
    this.flushMarkdown();
    if (!this.atLineStart) this.out.write('\n');
    this.atLineStart = true;
  }

  /** Ends the answer with exactly one newline. */
  finish(): void {
    this.endLine();
  }

  describeCall(call: ToolCall, input: unknown): string {
    return `${this.s.bold(call.name)} ${JSON.stringify(input)}`;
  }
}
