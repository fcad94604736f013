import { ConfigError, ProviderError } from '../errors.js';
import type { Message, ModelRequest, ProviderName, ToolSpec } from '../types.js';

// How large a request is, how large a context to ask for, and whether a server cut a prompt: the rules
// every provider and both callers (research, chat) share, with no tokenizer. Local servers differ in what
// they do with a prompt longer than their context (Ollama and old llama.cpp cut its start without an
// error, vLLM refuses it with a 400); these rules let the callers fit requests first and notice after.

/**
 * Characters per token of English prose, on the low side (Llama 3, Qwen and GPT tokenizers give 4 to
 * 4.5): a prompt is estimated a little too large rather than too small, so a request sized by it fits.
 */
export const CHARS_PER_TOKEN = 3.5;

export const tokensOf = (chars: number): number => Math.ceil(chars / CHARS_PER_TOKEN);
export const charsOf = (tokens: number): number => Math.floor(tokens * CHARS_PER_TOKEN);

/**
 * A text's tokens, estimated on the high side with no tokenizer: letters and spaces at CHARS_PER_TOKEN,
 * digits, punctuation and letters of other scripts at two characters a token (numbers are split in
 * groups of three or fewer; Cyrillic or Devanagari take more tokens than English), and Chinese,
 * Japanese and Korean characters, or emoji, at a token each.
 */
export function textTokens(s: string): number {
  let plain = 0;
  let dense = 0;
  let wide = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 128) {
      if ((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 32 || c === 10 || c === 9) plain++;
      else dense++;
    } else if ((c >= 0x2e80 && c <= 0xd7a3) || (c >= 0xf900 && c <= 0xfaff) || (c >= 0xff00 && c <= 0xffef))
      wide++;
    else if (c >= 0xd800 && c <= 0xdbff) {
      wide++;
      i++;
    } else dense++;
  }
  return Math.ceil(plain / CHARS_PER_TOKEN + dense / 2 + wide);
}

/** Every server we know runs with at least this context (Ollama's old default): a smaller request fits. */
export const SMALLEST_CONTEXT = 2048;

/** What a message costs beyond its text: the chat template's role markers. */
const PER_MESSAGE_TOKENS = 5;

const toolTokens = (tools: ToolSpec[] | undefined): number =>
  (tools ?? []).reduce(
    (n, t) => n + textTokens(t.name) + textTokens(t.description) + textTokens(JSON.stringify(t.parameters)),
    0,
  );

function messageTokens(m: Message): number {
  if (m.role !== 'assistant') return textTokens(m.content) + PER_MESSAGE_TOKENS;
  return m.content.reduce(
    (n, p) =>
      n + (p.type === 'toolCall' ? textTokens(p.name) + textTokens(p.argumentsText) : textTokens(p.text)),
    PER_MESSAGE_TOKENS,
  );
}

/** The estimated prompt of a request, in tokens: its system prompt, messages and tool definitions. */
export function promptTokens(request: Pick<ModelRequest, 'system' | 'messages' | 'tools'>): number {
  return (
    textTokens(request.system ?? '') +
    request.messages.reduce((n, m) => n + messageTokens(m), 0) +
    toolTokens(request.tools)
  );
}

/** Ollama's num_ctx is asked in steps of this size, so that near requests share one loaded runner. */
export const NUM_CTX_STEP = 2048;

/**
 * The context to ask for: the prompt and its output budget, rounded up to a step, never above `cap` (the
 * model's context, or AGENT_NUM_CTX) and never below `floor` (what was asked before: Ollama reloads the
 * model whenever num_ctx changes, so within a process it only grows).
 */
export function contextToAsk(prompt: number, output: number, cap?: number, floor = 0): number {
  const wanted = Math.max(floor, Math.ceil((prompt + output) / NUM_CTX_STEP) * NUM_CTX_STEP);
  return cap === undefined ? wanted : Math.min(cap, wanted);
}

/** Below this share of the estimate, a prompt count means the server read only part of the prompt. */
export const CUT_RATIO = 0.6;

/** A prompt count this close to a known context, of a prompt estimated larger, is the context filled. */
const FILLED = 0.95;

/**
 * Whether a server cut the prompt. Either it says it read far fewer tokens than were sent (the estimate
 * errs high by a fifth at most) of a prompt larger than its context (`window`, or the smallest any
 * server has when unknown); or, its context known, the prompt was estimated larger and what it read
 * fills the context (Ollama and old llama.cpp servers keep as much of the end as fits). A reply that
 * reports no prompt count (0) proves nothing. A server whose context is unknown and that cut only a
 * little cannot be told from a tokenizer that counts fewer tokens: AGENT_CONTEXT_TOKENS makes it known.
 */
export function promptWasCut(o: { estimated: number; read: number; window?: number }): boolean {
  if (o.read <= 0) return false;
  if (o.read < CUT_RATIO * o.estimated && o.estimated > (o.window ?? SMALLEST_CONTEXT)) return true;
  const w = o.window;
  return w !== undefined && o.estimated > w && o.read >= FILLED * w && o.read <= w;
}

/** The setting that gives a cut prompt room, as one sentence for the line that reports the cut. */
export function cutFix(provider: ProviderName, env: NodeJS.ProcessEnv = process.env): string {
  if (provider === 'ollama')
    return env.AGENT_NUM_CTX
      ? `raise AGENT_NUM_CTX (now ${env.AGENT_NUM_CTX}), or use a model with a longer context`
      : 'use a model with a longer context, or give the server more memory';
  return "set AGENT_CONTEXT_TOKENS to the server's context so that requests are split to fit it, or raise the server's own context (Ollama: OLLAMA_CONTEXT_LENGTH; vLLM: --max-model-len; llama.cpp: --ctx-size)";
}

/** A server's refusal of a request longer than its context, with what it said of the sizes. */
export interface ContextRefusal {
  /** The model's context, in tokens. */
  maxTokens: number;
  /** The prompt's tokens as the server counted them, when it said. */
  promptTokens?: number;
}

/**
 * Reads a context-length refusal from a provider's error: vLLM's "This model's maximum context length is
 * 8192 tokens. However, you requested 9000 tokens (1000 in the messages, 8000 in the completion)" (or
 * its newer "…and your request has 1000 input tokens"), llama.cpp's "exceeds the available context size"
 * with its n_ctx, OpenAI's context_length_exceeded. Undefined for any other error.
 */
export function contextRefusal(error: unknown): ContextRefusal | undefined {
  if (!(error instanceof ProviderError) || (error.status !== 400 && error.status !== 413)) return undefined;
  const m = error.message.replace(/(\d),(\d)/g, '$1$2');
  const max = /maximum context length is (\d+)/i.exec(m)?.[1] ?? /\bn_ctx[" =:]+(\d+)/i.exec(m)?.[1];
  if (!max) return undefined;
  const prompt =
    /(\d+) (?:tokens )?in the messages/i.exec(m)?.[1] ??
    /has (\d+) input tokens/i.exec(m)?.[1] ??
    /\bn_prompt_tokens[" =:]+(\d+)/i.exec(m)?.[1];
  return { maxTokens: Number(max), ...(prompt ? { promptTokens: Number(prompt) } : {}) };
}

/**
 * A whole number of tokens from a variable (AGENT_NUM_CTX, AGENT_CONTEXT_TOKENS); undefined when unset.
 * Anything else is a ConfigError naming the variable (exit 2).
 */
export function tokensSetting(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = env[name]?.trim().replace(/[_,]/g, '');
  if (!raw) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 256 || n > 10_000_000)
    throw new ConfigError(
      `${name} must be a number of tokens from 256 up (for example 8192), not "${env[name]}".`,
    );
  return n;
}
