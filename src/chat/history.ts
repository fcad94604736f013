import { CHARS_PER_TOKEN } from '../providers/context.js';
import type { Message } from '../types.js';

/**
 * Characters of history that fit a model with a context of `window` tokens, beside `fixedChars` (the
 * system prompt and the tools) and room for the reply (up to 4,096 tokens, a quarter of a small window).
 */
export function historyCharsFor(window: number, fixedChars: number): number {
  const reply = Math.min(4096, Math.floor(window / 4));
  return Math.max(0, Math.floor((window - reply - 256) * CHARS_PER_TOKEN) - fixedChars);
}

/** A rough size of a message as the model sees it: text, tool arguments and results. */
export function messageChars(m: Message): number {
  if (m.role === 'user' || m.role === 'toolResult') return m.content.length;
  return m.content.reduce(
    (n, p) =>
      n +
      (p.type === 'text'
        ? p.text.length
        : p.type === 'toolCall'
          ? p.argumentsText.length + p.name.length
          : p.text.length),
    0,
  );
}

/**
 * Keeps a long conversation within the model's context by dropping whole exchanges from the start
 * (a user message and everything up to the next one), so tool calls never lose their results.
 * The latest exchange is always kept. Returns how many exchanges were dropped.
 */
export function trimHistory(
  messages: readonly Message[],
  maxChars: number,
): { messages: Message[]; dropped: number } {
  const starts = messages.flatMap((m, i) => (m.role === 'user' ? [i] : []));
  let total = messages.reduce((n, m) => n + messageChars(m), 0);
  let cut = 0;
  let dropped = 0;
  for (let k = 0; k < starts.length - 1 && total > maxChars; k++) {
    const next = starts[k + 1]!;
    for (let i = cut; i < next; i++) total -= messageChars(messages[i]!);
    cut = next;
    dropped++;
  }
  return { messages: messages.slice(cut), dropped };
}
