import { createInterface } from 'node:readline';
import { AgentError, errorMessage } from '../../errors.js';
import { capRefusal } from './cap.js';
import type { Chat } from './context.js';
import { asMessage, slash } from './slash.js';
import { TurnRenderer } from './turn-render.js';

/** One user message per non-empty line; answers on stdout, traces on stderr. Stops at the first failure. */
export async function piped(chat: Chat): Promise<void> {
  const rl = createInterface({ input: process.stdin, terminal: false, crlfDelay: Number.POSITIVE_INFINITY });
  let busy: AbortController | undefined;
  const onSigint = () => {
    busy?.abort();
    process.exitCode = 130;
    rl.close();
  };
  process.on('SIGINT', onSigint);
  try {
    for await (const raw of rl) {
      const typed = raw.trim();
      if (!typed) continue;
      const text = asMessage(typed);
      const refused = capRefusal(chat, typed);
      if (refused) throw new AgentError(refused);
      busy = new AbortController();
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
        throw asAgentError(error);
      } finally {
        busy = undefined;
      }
    }
  } finally {
    process.off('SIGINT', onSigint);
    rl.close();
  }
}

/** Whatever stopped the input ends the command with one line, not a stack trace. */
function asAgentError(error: unknown): AgentError {
  return error instanceof AgentError ? error : new AgentError(errorMessage(error), { cause: error });
}
