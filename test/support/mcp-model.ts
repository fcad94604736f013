import { readdirSync, readFileSync } from 'node:fs';
import { type RecordedRequest, sse, startFakeServer } from './fake-server.js';
import { chatSse } from './sse-builders.js';

// A model for chats with MCP tools, behind a loopback OpenAI-compatible server: each user message names
// a step; the model makes that step's tool calls, then answers "done: <step>" once their results are in.

export interface ScriptedCall {
  name: string;
  args?: Record<string, unknown>;
}

/** A step's tool calls, or a plain answer (a string). */
export type Steps = Record<string, ScriptedCall[] | string | (() => Promise<ScriptedCall[] | string>)>;

type WireMessage = any;

const messagesOf = (req: RecordedRequest): WireMessage[] =>
  (req.body as { messages: WireMessage[] }).messages;

export async function startStepModel(steps: Steps) {
  return startFakeServer([], async (req) => {
    const messages = messagesOf(req);
    const step = messages.filter((m) => m.role === 'user').at(-1)?.content as string;
    if (messages.at(-1)?.role === 'tool') return sse(chatSse({ text: `done: ${step}` }));
    const script = steps[step];
    if (!script) return sse(chatSse({ text: `no such step: ${step}` }));
    const calls = typeof script === 'function' ? await script() : script;
    if (typeof calls === 'string') return sse(chatSse({ text: calls }));
    return sse(
      chatSse({ calls: calls.map((c, i) => ({ id: `${step}-${i}`, name: c.name, args: c.args ?? {} })) }),
    );
  });
}

/** The tool results the model was sent for one step, in call order. */
export function resultsOf(requests: RecordedRequest[], step: string): string[] {
  for (const req of [...requests].reverse()) {
    const messages = messagesOf(req);
    const user = messages.findLastIndex((m) => m.role === 'user');
    if (messages[user]?.content !== step || messages.at(-1)?.role !== 'tool') continue;
    return messages.slice(user + 1).flatMap((m) => (m.role === 'tool' ? [String(m.content)] : []));
  }
  throw new Error(`the model was sent no tool results for "${step}"`);
}

/** The tool names offered in one request. */
export const offeredTools = (req: RecordedRequest): string[] =>
  ((req.body as { tools?: { function: { name: string } }[] }).tools ?? []).map((t) => t.function.name);

/** Pids of running processes whose command line contains `tag` (Linux /proc). */
export function pidsWith(tag: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(tag)) pids.push(Number(entry));
    } catch {} // gone meanwhile
  }
  return pids;
}
