import { createInterface } from 'node:readline';
import { AgentError, errorMessage } from '../../errors.js';
import { onInterrupt } from '../interrupt.js';
import { capRefusal } from './cap.js';
import type { Chat } from './context.js';
import { asMessage, slash } from './slash.js';
import { TurnRenderer } from './turn-render.js';

/** One user message per non-empty line; answers on stdout, traces on stderr. Stops at the first failure. */
export async function piped(chat: Chat): Promise<void> {
  const rl = createInterface({ input: process.stdin, terminal: false, crlfDelay: Number.POSITIVE_INFINITY });
  let busy: AbortController | undefined;
  // Ctrl-C: the running message is cancelled (its call recorded) and the input closed; twice, at once.
  const stopListening = onInterrupt(() => {
    busy?.abort();
    process.exitCode = 130;
    rl.close();
  });
  // SIGTERM or SIGHUP: as Ctrl-C, but the exit code is the signal's (set by the chat command).
  const leave = () => {
    busy?.abort();
    rl.close();
  };
  chat.leave.addEventListener('abort', leave, { once: true });
  if (chat.leave.aborted) leave();
  try {
    for await (const raw of rl) {
      const typed = raw.trim();
      if (!typed) continue;
      const text = asMessage(typed);
      const refused = await capRefusal(chat, typed);
      if (refused) throw new AgentError(refused);
      busy = new AbortController();
      // As before servers started in the background: a script's first line sees every server that
      // starts within the grace, /tools included.
      await chat.mcp?.beforeMessage(busy.signal);
      if (text === undefined) {
        const go = await slash(chat, typed, (out) => process.stdout.write(`${out}\n`), busy.signal).catch(
          (error) => {
            throw asAgentError(error);
          },
        );
        busy = undefined;
        if (!go) break;
        continue;
      }
      const renderer = new TurnRenderer(process.stdout, process.stderr);
      try {
        await chat.session.send(text, { signal: busy.signal, onEvent: renderer.handle });
        renderer.finish();
      } catch (error) {
        renderer.finish();
        if (chat.leave.aborted) break;
        throw asAgentError(error);
      } finally {
        busy = undefined;
      }
    }
  } finally {
    stopListening();
    chat.leave.removeEventListener('abort', leave);
    rl.close();
  }
}

/** Whatever stopped the input ends the command with one line, not a stack trace. */
function asAgentError(error: unknown): AgentError {
  return error instanceof AgentError ? error : new AgentError(errorMessage(error), { cause: error });
}
