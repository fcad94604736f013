import { createHash } from 'node:crypto';
import type { AssistantMessage, Message } from '../types.js';

// A saved history made fit for the provider and model that continue it. Reasoning is signed or
// encrypted for the model that wrote it (Anthropic thinking signatures, OpenAI encrypted reasoning):
// sent to another one it is a 400, so it stays behind. Tool call ids cross with a normalised form.

export interface HistoryEntry {
  message: Message;
  /** The provider and model the chat used when this message was said. */
  provider: string;
  model: string;
}

export interface AdaptedHistory {
  messages: Message[];
  /** `provider model` of each source whose reasoning was left out, in order of appearance. */
  reasoningLeftOut: string[];
}

/**
 * Ids every supported API accepts: Anthropic requires `^[a-zA-Z0-9_-]+$`, OpenAI Chat Completions
 * refuses ids over 40 characters, and the Responses API takes any `call_id` of that shape.
 */
const PORTABLE_ID = /^[a-zA-Z0-9_-]{1,40}$/;

/** The same id for the same input, so a call and its result keep matching. */
export function portableToolCallId(id: string): string {
  return PORTABLE_ID.test(id) ? id : `call_${createHash('sha256').update(id).digest('hex').slice(0, 24)}`;
}

const NO_RESULT = 'No result was recorded for this call.';

/**
 * Converts a saved history for `target`. Messages said with another provider or model lose their
 * reasoning parts and get portable, unique tool call ids; an assistant message left empty goes with its
 * results. Every tool call stays followed by exactly one result, in call order.
 */
export function adaptHistory(
  entries: readonly HistoryEntry[],
  target: { provider: string; model: string },
): AdaptedHistory {
  const messages: Message[] = [];
  const leftOut: string[] = [];
  const usedIds = new Set<string>();
  // The calls of the latest assistant message, by their saved id, while its results are read.
  let open = new Map<string, { id: string; name: string; answered: boolean }>();

  // Every call gets its result before anything else is said.
  const close = () => {
    for (const c of open.values()) {
      if (!c.answered)
        messages.push({
          role: 'toolResult',
          toolCallId: c.id,
          toolName: c.name,
          content: NO_RESULT,
          isError: true,
        });
    }
    open = new Map();
  };

  for (const entry of entries) {
    const m = entry.message;
    if (m.role === 'toolResult') {
      const call = open.get(m.toolCallId);
      // A result without its call, or a second one for a call, is a 400 everywhere: it is left out.
      if (!call || call.answered) continue;
      call.answered = true;
      messages.push(call.id === m.toolCallId ? m : { ...m, toolCallId: call.id });
      continue;
    }
    close();
    if (m.role === 'user') {
      messages.push(m);
      continue;
    }
    const foreign = entry.provider !== target.provider || entry.model !== target.model;
    const adapted = foreign ? crossOver(m, entry, leftOut) : m;
    // Dropped with its results: with no calls left, whatever results follow belong to nothing.
    if (adapted.content.length === 0) continue;
    const content = adapted.content.map((p) => {
      if (p.type !== 'toolCall') return p;
      const id = foreign ? uniqueId(portableToolCallId(p.id), usedIds) : p.id;
      usedIds.add(id);
      open.set(p.id, { id, name: p.name, answered: false });
      return id === p.id ? p : { ...p, id };
    });
    messages.push({ ...adapted, content });
  }
  close();
  return { messages, reasoningLeftOut: leftOut };
}

/** Without its reasoning parts; records where reasoning was dropped from. */
function crossOver(m: AssistantMessage, from: HistoryEntry, leftOut: string[]): AssistantMessage {
  const content = m.content.filter((p) => p.type !== 'reasoning');
  if (content.length < m.content.length) {
    const label = `${from.provider} ${from.model}`;
    if (!leftOut.includes(label)) leftOut.push(label);
  }
  // An answer that was only reasoning says nothing the next model can use.
  const empty = content.every((p) => p.type === 'text' && !p.text.trim());
  return { ...m, content: empty ? [] : content };
}

/** Providers reject repeated call ids; some local servers number every turn's calls from 0. */
function uniqueId(id: string, used: Set<string>): string {
  if (!used.has(id)) return id;
  for (let n = 2; ; n++) {
    const suffix = `_${n}`;
    const candidate = `${id.slice(0, 40 - suffix.length)}${suffix}`;
    if (!used.has(candidate)) return candidate;
  }
}

/** The one line said on resuming when reasoning was left out, or undefined. */
export function reasoningNotice(adapted: AdaptedHistory): string | undefined {
  if (adapted.reasoningLeftOut.length === 0) return undefined;
  return `Resuming a session from ${adapted.reasoningLeftOut.join(', ')}: its reasoning blocks are left out.`;
}
