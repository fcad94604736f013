import { createInterface, type Interface } from 'node:readline';
import { AbortedError, errorMessage } from '../../errors.js';
import type { ToolCall } from '../../types.js';
import { createSpinner } from '../spinner.js';
import { styleFor } from '../style.js';
import type { Chat } from './context.js';
import { costLine, slash } from './slash.js';
import { TurnRenderer } from './turn-render.js';

/** The chat on a terminal: a prompt, streamed answers, Ctrl-C cancels a turn, Ctrl-D leaves. */
export async function interactive(chat: Chat): Promise<void> {
  // The prompt and the typing echo go to the terminal even when answers are redirected to a file.
  const rl = createInterface({
    input: process.stdin,
    output: process.stdout.isTTY ? process.stdout : process.stderr,
    terminal: true,
    historySize: 200,
  });
  const s = styleFor(process.stdout);
  const spinner = await createSpinner();
  chat.spinner = spinner;
  let busy: AbortController | undefined;
  let closed = false;
  rl.on('close', () => {
    closed = true;
  });
  rl.on('SIGINT', () => {
    if (busy) busy.abort();
    else if (rl.line.length > 0) rl.write(null, { ctrl: true, name: 'u' });
    else rl.close();
  });

  process.stdout.write(s.dim(`agent chat · ${chat.label} · /help for commands, Ctrl-D to leave\n`));
  while (!closed) {
    const line = await ask(rl, s.bold('› '));
    if (line === null) break;
    const text = line.trim();
    if (!text) continue;
    busy = new AbortController();
    if (text.startsWith('/')) {
      try {
        if (!(await slash(chat, text, (out) => process.stdout.write(`${out}\n`), busy.signal))) break;
      } catch (error) {
        reportTurnError(error);
      } finally {
        busy = undefined;
      }
      continue;
    }
    const renderer = new TurnRenderer(process.stdout, process.stderr, spinner);
    const confirm = async (call: ToolCall, input: unknown) => {
      renderer.pause();
      const answer = await ask(rl, `Run ${renderer.describeCall(call, input)}? [y/N] `);
      return /^y(es)?$/i.test(answer?.trim() ?? '');
    };
    try {
      await chat.session.send(text, { signal: busy.signal, onEvent: renderer.handle, confirm });
      renderer.finish();
    } catch (error) {
      renderer.finish();
      reportTurnError(error);
    } finally {
      busy = undefined;
    }
  }
  rl.close();
  if (chat.session.history.length > 0) process.stdout.write(`\n${s.dim(costLine(chat))}\n`);
  else process.stdout.write('\n');
}

function reportTurnError(error: unknown): void {
  if (error instanceof AbortedError) {
    process.stderr.write(
      styleFor(process.stderr).dim('(cancelled; the conversation is as it was before this message)\n'),
    );
  } else process.stderr.write(`${styleFor(process.stderr).red(`agent: ${errorMessage(error)}`)}\n`);
}

function ask(rl: Interface, prompt: string): Promise<string | null> {
  return new Promise((resolve) => {
    const done = (value: string | null) => {
      rl.off('line', onLine);
      rl.off('close', onClose);
      resolve(value);
    };
    const onLine = (line: string) => done(line);
    const onClose = () => done(null);
    rl.on('line', onLine);
    rl.on('close', onClose);
    rl.setPrompt(prompt);
    rl.prompt();
  });
}
