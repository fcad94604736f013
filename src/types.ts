// The one message, usage and event vocabulary shared by everything outside src/providers/.

/** Token buckets that never overlap. `reasoning` is a part of `output`, kept for display only. */
export interface Usage {
  /** Input tokens that were neither read from nor written to a prompt cache. */
  input: number;
  cacheRead: number;
  cacheWrite: number;
  output: number;
  reasoning: number;
}

export const emptyUsage = (): Usage => ({ input: 0, cacheRead: 0, cacheWrite: 0, output: 0, reasoning: 0 });

export function addUsage(a: Usage, b: Usage): Usage {
  return {
    input: a.input + b.input,
    cacheRead: a.cacheRead + b.cacheRead,
    cacheWrite: a.cacheWrite + b.cacheWrite,
    output: a.output + b.output,
    reasoning: a.reasoning + b.reasoning,
  };
}

export type StopReason = 'stop' | 'length' | 'toolUse' | 'refusal' | 'error' | 'aborted';

export interface TextPart {
  type: 'text';
  text: string;
}

export interface ToolCall {
  type: 'toolCall';
  id: string;
  name: string;
  /** The arguments exactly as the model streamed them (may be incomplete JSON when cut off). */
  argumentsText: string;
}

/** Reasoning the provider wants back on the next turn; `data` is opaque to everything but its provider. */
export interface ReasoningPart {
  type: 'reasoning';
  provider: string;
  text: string;
  data: unknown;
}

export type AssistantPart = TextPart | ToolCall | ReasoningPart;

export interface UserMessage {
  role: 'user';
  content: string;
}

export interface AssistantMessage {
  role: 'assistant';
  content: AssistantPart[];
  provider: string;
  model: string;
  usage: Usage;
  stopReason: StopReason;
}

export interface ToolResultMessage {
  role: 'toolResult';
  toolCallId: string;
  toolName: string;
  content: string;
  isError: boolean;
}

export type Message = UserMessage | AssistantMessage | ToolResultMessage;

/** What a tool looks like to a provider: its JSON Schema, never its zod object. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** Streamed while a model call is in progress. */
export type StreamEvent =
  | { type: 'text'; delta: string }
  | { type: 'toolCallStart'; id: string; name: string }
  | { type: 'reasoning'; delta: string };

export interface ModelRequest {
  model: string;
  system?: string;
  messages: Message[];
  tools?: ToolSpec[];
  /** `none` keeps the tools visible (history may hold tool calls) but forbids new calls. */
  toolChoice?: 'auto' | 'none';
  maxTokens?: number;
  /** The reply must be JSON of this schema: Ollama constrains its decoding to it; other providers ignore it. */
  jsonSchema?: Record<string, unknown>;
  signal?: AbortSignal;
  onEvent?: (event: StreamEvent) => void;
}

/** A provider makes one model call: stream events as they come, resolve with the whole assistant message. */
export interface Provider {
  readonly name: ProviderName;
  complete(request: ModelRequest): Promise<AssistantMessage>;
  /**
   * The context a model has on this server, in tokens, where it can be known (local servers: the model's
   * own, a setting, or what the server says); undefined when unknown. Absent for the hosted APIs, which
   * refuse a prompt too long rather than cut it.
   */
  contextTokens?(model: string): Promise<number | undefined>;
}

export type ProviderName = 'anthropic' | 'openai' | 'openai-compatible' | 'ollama';
