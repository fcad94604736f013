import type {
  AssistantMessage,
  AssistantPart,
  Message,
  ModelRequest,
  Provider,
  StopReason,
} from '../../src/types.js';

export type Script = (request: ModelRequest, index: number) => AssistantMessage | Promise<AssistantMessage>;

export function reply(content: AssistantPart[], stopReason?: StopReason): AssistantMessage {
  const hasCalls = content.some((p) => p.type === 'toolCall');
  return {
    role: 'assistant',
    content,
    provider: 'openai-compatible',
    model: 'scripted',
    usage: { input: 10, cacheRead: 0, cacheWrite: 0, output: 5, reasoning: 0 },
    stopReason: stopReason ?? (hasCalls ? 'toolUse' : 'stop'),
  };
}

export const text = (t: string): AssistantPart => ({ type: 'text', text: t });
export const toolCall = (id: string, name: string, args: unknown): AssistantPart => ({
  type: 'toolCall',
  id,
  name,
  argumentsText: typeof args === 'string' ? args : JSON.stringify(args),
});

/** A model that answers from a script and keeps a copy of every request it was sent. */
export function scriptedProvider(
  script: Script | AssistantMessage[],
): Provider & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = [];
  return {
    name: 'openai-compatible',
    requests,
    async complete(request) {
      const index = requests.length;
      requests.push({ ...request, messages: structuredClone(request.messages) });
      const next = Array.isArray(script) ? script[index] : await script(request, index);
      if (!next) throw new Error(`the script has no reply #${index + 1}`);
      for (const p of next.content) if (p.type === 'text') request.onEvent?.({ type: 'text', delta: p.text });
      return structuredClone(next);
    },
  };
}

/** Every assistant tool call is followed, right after that message, by exactly one result per id. */
export function assertWellFormed(history: Message[]): void {
  for (let i = 0; i < history.length; i++) {
    const m = history[i]!;
    if (m.role !== 'assistant') continue;
    const ids = m.content.flatMap((p) => (p.type === 'toolCall' ? [p.id] : []));
    const results = [];
    let j = i + 1;
    while (j < history.length && history[j]!.role === 'toolResult')
      results.push(history[j++] as { toolCallId: string });
    const got = results.map((r) => r.toolCallId);
    if (JSON.stringify(got) !== JSON.stringify(ids)) {
      throw new Error(`message ${i}: calls ${JSON.stringify(ids)} got results ${JSON.stringify(got)}`);
    }
  }
}
