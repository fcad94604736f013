import { createInterface, type Interface } from 'node:readline';
import { Writable } from 'node:stream';
import { AbortedError, errorMessage } from '../../errors.js';
import type { ToolCall } from '../../types.js';
import { createSpinner } from '../spinner.js';
import { styleFor } from '../style.js';
import { capRefusal } from './cap.js';
import type { Chat } from './context.js';
import { asMessage, costLine, slash } from './slash.js';
import { summarize, TurnRenderer } from './turn-render.js';

/**
 * The chat on a terminal: a prompt, streamed answers, Ctrl-C cancels a turn, Ctrl-D leaves. Lines typed
 * while a turn runs are kept and sent after it, in order, each as its own message; Ctrl-C cancels only
 * the running turn, and the lines typed ahead still go after it.
 */
export async function interactive(chat: Chat): Promise<void> {
  const s = styleFor(process.stdout);
  const dimErr = styleFor(process.stderr).dim;
  const spinner = await createSpinner();
  chat.spinner = spinner;
  let busy: AbortController | undefined;
  let renderer: TurnRenderer | undefined;
  // The prompt and the typing echo go to the terminal even when answers are redirected to a file.
  const keyboard = new Keyboard(process.stdin, process.stdout.isTTY ? process.stdout : process.stderr, {
    queued: (line) => {
      const note = `  ↳ queued: ${summarize(line, 80)}`;
      if (renderer) renderer.note(note);
      else process.stderr.write(`${dimErr(note)}\n`);
    },
    interrupt: () => {
      // Pressed again while the turn is still being cancelled (a server slow to let go): out at once.
      if (busy?.signal.aborted) {
        spinner?.stop();
        process.exit(130);
      }
      if (busy) {
        busy.abort();
        keyboard.cancelAsk(); // a confirmation waiting for its answer is declined
      } else keyboard.interruptPrompt();
    },
  });
  // After Ctrl-D has closed the keyboard, the lines typed ahead still run; Ctrl-C then arrives as a
  // signal, since the terminal has left raw mode.
  const onSignal = () => busy?.abort();
  process.on('SIGINT', onSignal);
  // SIGTERM or SIGHUP: the running turn is cancelled and the keyboard closed, so the chat ends.
  const leave = () => {
    busy?.abort();
    keyboard.cancelAsk();
    keyboard.close();
  };
  chat.leave.addEventListener('abort', leave, { once: true });
  if (chat.leave.aborted) leave();

  // A server's warning or note can arrive while the prompt waits: the prompt is drawn again below it.
  chat.redrawPrompt = () => keyboard.redraw();

  process.stdout.write(s.dim(`agent chat · ${chat.label} · /help for commands, Ctrl-D to leave\n`));
  const starting = chat.mcp?.startingNote();
  if (starting) process.stderr.write(`${dimErr(starting)}\n`);
  try {
    for (;;) {
      const line = await keyboard.next(s.bold('› '));
      if (line === null) break;
      const typed = line.trim();
      if (!typed) continue;
      const text = asMessage(typed);
      const refused = await capRefusal(chat, typed);
      if (refused) {
        process.stderr.write(`${styleFor(process.stderr).yellow(refused)}\n`);
        continue;
      }
      busy = new AbortController();
      try {
        if (text === undefined) {
          if (!(await slash(chat, typed, (out) => process.stdout.write(`${out}\n`), busy.signal))) break;
          continue;
        }
        // A terminal shows what a message waits for (up to the grace) rather than nothing.
        await chat.mcp?.beforeMessage(busy.signal, {
          start: (servers) =>
            spinner?.start(`waiting for MCP server${servers.length === 1 ? '' : 's'} ${servers.join(', ')}…`),
          stop: () => spinner?.stop(),
        });
        const turn = new TurnRenderer(process.stdout, process.stderr, spinner);
        renderer = turn;
        const confirm = async (call: ToolCall, input: unknown) => {
          turn.endLine();
          const answer = await keyboard.ask(`Run ${turn.describeCall(call, input)}? [y/N] `);
          return /^y(es)?$/i.test(answer?.trim() ?? '');
        };
        try {
          await chat.session.send(text, { signal: busy.signal, onEvent: turn.handle, confirm });
        } finally {
          turn.finish();
        }
      } catch (error) {
        reportTurnError(error);
      } finally {
        busy = undefined;
        renderer = undefined;
      }
    }
  } finally {
    chat.redrawPrompt = undefined;
    process.off('SIGINT', onSignal);
    chat.leave.removeEventListener('abort', leave);
    keyboard.close();
  }
  if (chat.session.history.length > 0) process.stdout.write(`\n${s.dim(await costLine(chat))}\n`);
  else process.stdout.write('\n');
}

function reportTurnError(error: unknown): void {
  if (error instanceof AbortedError) {
    process.stderr.write(
      styleFor(process.stderr).dim('(cancelled; the conversation is as it was before this message)\n'),
    );
  } else process.stderr.write(`${styleFor(process.stderr).red(`agent: ${errorMessage(error)}`)}\n`);
}

/**
 * The terminal as readline sees it. While a turn writes its answer there, the echo of what is typed is
 * held back (it would land in the middle of the answer, and readline's redraws would erase answer text);
 * the keystrokes still reach readline, which keeps the line being typed.
 */
class EchoGate extends Writable {
  open = false;
  readonly isTTY = true;
  private readonly onResize = () => this.emit('resize');

  constructor(readonly terminal: NodeJS.WriteStream) {
    super({ decodeStrings: false });
    terminal.on('resize', this.onResize);
  }

  get columns(): number {
    return this.terminal.columns;
  }

  get rows(): number {
    return this.terminal.rows;
  }

  override _write(
    chunk: string | Buffer,
    _encoding: BufferEncoding,
    done: (error?: Error | null) => void,
  ): void {
    if (this.open) this.terminal.write(chunk);
    done();
  }

  detach(): void {
    this.terminal.off('resize', this.onResize);
  }
}

interface KeyboardEvents {
  /** A line was typed while nothing was reading: it is kept for later. */
  queued(line: string): void;
  /** Ctrl-C. */
  interrupt(): void;
}

/**
 * Lines from the terminal. At a prompt a line is read at once; typed while a turn runs, a line is kept
 * in order and read afterwards, as a shell reads type-ahead, and a half-typed line comes back at the
 * next prompt. Nothing typed is dropped.
 */
export class Keyboard {
  private readonly queue: string[] = [];
  private readonly echo: EchoGate;
  private readonly rl: Interface;
  private waiter?: (line: string | null) => void;
  private closed = false;

  constructor(input: NodeJS.ReadableStream, terminal: NodeJS.WriteStream, events: KeyboardEvents) {
    this.echo = new EchoGate(terminal);
    this.rl = createInterface({ input, output: this.echo, terminal: true, historySize: 200 });
    this.rl.on('line', (line) => {
      if (this.waiter) this.settle(line);
      else {
        this.queue.push(line);
        events.queued(line);
      }
    });
    this.rl.on('close', () => {
      this.closed = true;
      this.settle(null);
    });
    this.rl.on('SIGINT', () => events.interrupt());
  }

  /**
   * The next message: the oldest line typed ahead, shown after the prompt as if typed there; else a line
   * typed at a fresh prompt. Null once the keyboard is closed (Ctrl-D) and nothing is left.
   */
  next(prompt: string): Promise<string | null> {
    const queued = this.queue.shift();
    if (queued !== undefined) {
      this.echo.terminal.write(`${prompt}${queued}\n`);
      return Promise.resolve(queued);
    }
    return this.read(prompt, true);
  }

  /**
   * A question's answer: the next line typed after the prompt appears, never one typed before it (those
   * stay queued for later). Null when cancelled or closed.
   */
  ask(prompt: string): Promise<string | null> {
    return this.read(prompt, false);
  }

  /** Ends a question waiting for its answer as if nothing had been typed (Ctrl-C at a confirmation). */
  cancelAsk(): void {
    if (!this.waiter) return;
    this.takeDraft();
    this.settle(null);
  }

  /** Ctrl-C at the prompt: clears the line being typed, or leaves when it is empty. */
  interruptPrompt(): void {
    if (this.rl.line.length > 0) this.takeDraft();
    else this.rl.close();
  }

  /** Draws the prompt and the line being typed again, after something else was printed below them. */
  redraw(): void {
    if (this.waiter && this.echo.open) this.rl.prompt(true);
  }

  close(): void {
    this.rl.close();
    this.echo.detach();
  }

  private read(prompt: string, continueDraft: boolean): Promise<string | null> {
    if (this.closed) return Promise.resolve(null);
    // Whatever was half typed while the echo was held back: at the next prompt it is continued; a
    // question's answer starts afresh and the draft is put back, unseen, once the answer is in.
    const draft = this.takeDraft();
    this.echo.open = true;
    this.rl.setPrompt(prompt);
    this.rl.prompt();
    if (continueDraft) this.rl.write(draft);
    return new Promise((resolve) => {
      this.waiter = (line) => {
        this.echo.open = false;
        this.rl.setPrompt('');
        if (!continueDraft && !this.closed) this.rl.write(draft);
        resolve(line);
      };
    });
  }

  private settle(line: string | null): void {
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.(line);
  }

  /** Removes the line being typed from readline's buffer and returns it. */
  private takeDraft(): string {
    const draft = this.rl.line;
    if (draft) {
      this.rl.write(null, { ctrl: true, name: 'e' });
      this.rl.write(null, { ctrl: true, name: 'u' });
    }
    return draft;
  }
}
