import { AbortedError, errorMessage } from '../errors.js';
import { cutFix, promptTokens, promptWasCut, SMALLEST_CONTEXT } from '../providers/context.js';
import { parseToolArguments } from '../providers/json.js';
import { cancelledMessage } from '../providers/partial.js';
import type { ToolRegistry } from '../tools/registry.js';
import type {
  AssistantMessage,
  Message,
  Provider,
  StreamEvent,
  ToolCall,
  ToolResultMessage,
} from '../types.js';
import { callSignature, validateCall } from './validate.js';

export type LoopEvent =
  | StreamEvent
  | { type: 'modelCallStart'; turn: number }
  | { type: 'toolRun'; call: ToolCall; input: unknown }
  | { type: 'toolResult'; call: ToolCall; result: ToolResultMessage }
  | { type: 'notice'; message: string };

export interface TurnOptions {
  provider: Provider;
  model: string;
  system?: string;
  registry: ToolRegistry;
  /** Model turns that may call tools, per user message. */
  maxTurns: number;
  maxTokens?: number;
  signal?: AbortSignal;
  /** Run tools marked `needsConfirmation` without asking. */
  autoApprove?: boolean;
  /** Asks the user; absent when there is no terminal to ask on. */
  confirm?: (call: ToolCall, input: unknown) => Promise<boolean>;
  onEvent?: (event: LoopEvent) => void;
  /**
   * Called after every model call, with its usage: the ledger hangs here. A call cancelled mid-stream
   * comes too, with `stopReason: 'aborted'` and the usage known at the cancel, before the turn throws.
   */
  onModelCall?: (message: AssistantMessage) => void;
}

export type TurnEnd = 'answered' | 'budget' | 'repeat' | 'length' | 'refusal';

export interface TurnResult {
  /** The messages this turn adds to the history, starting with the user's. */
  messages: Message[];
  /** The final answer text shown to the user. */
  text: string;
  modelCalls: number;
  end: TurnEnd;
}

const result = (call: ToolCall, content: string, isError: boolean): ToolResultMessage => ({
  role: 'toolResult',
  toolCallId: call.id,
  toolName: call.name,
  content,
  isError,
});

const textOf = (m: AssistantMessage) =>
  m.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('');

/**
 * One user message through the tool loop. The history passed in is never modified: the caller appends
 * `messages` only when the turn succeeds, so a failed or cancelled turn leaves no half-written history.
 * Whatever a model asks for becomes a tool result; only provider failures and cancellation throw.
 */
export async function runTurn(
  history: readonly Message[],
  userText: string,
  o: TurnOptions,
): Promise<TurnResult> {
  const added: Message[] = [{ role: 'user', content: userText }];
  const failedSignatures = new Set<string>();
  let modelCalls = 0;
  const emit = (e: LoopEvent) => o.onEvent?.(e);

  /** A local server that read far less than the prompt cut its start: the conversation's beginning. */
  const sayIfCut = async (reply: AssistantMessage, messages: Message[]) => {
    if (!o.provider.contextTokens) return;
    const estimated = promptTokens({ system: o.system, messages, tools: o.registry.specs });
    const read = reply.usage.input + reply.usage.cacheRead + reply.usage.cacheWrite;
    if (estimated <= SMALLEST_CONTEXT) return;
    if (!promptWasCut({ estimated, read, window: await o.provider.contextTokens(o.model) })) return;
    emit({
      type: 'notice',
      message: `The server cut this prompt: it read ${read.toLocaleString('en-US')} of about ${estimated.toLocaleString('en-US')} tokens, so the model did not see all of it (the start is lost). To fix: ${cutFix(o.provider.name)}.`,
    });
  };

  const call = async (toolChoice: 'auto' | 'none'): Promise<AssistantMessage> => {
    if (o.signal?.aborted) throw new AbortedError();
    modelCalls++;
    emit({ type: 'modelCallStart', turn: modelCalls });
    let reply: AssistantMessage;
    try {
      reply = await o.provider.complete({
        model: o.model,
        system: o.system,
        messages: [...history, ...added],
        tools: o.registry.specs,
        toolChoice,
        maxTokens: o.maxTokens,
        signal: o.signal,
        onEvent: emit,
      });
    } catch (error) {
      // A cancelled call is billed all the same: the ledger gets what is known of it, or, cancelled
      // before its reply began, its input estimated from the request.
      if (error instanceof AbortedError)
        o.onModelCall?.(
          error.partial ??
            cancelledMessage({
              provider: o.provider.name,
              model: o.model,
              content: [],
              requestBody: { system: o.system, messages: [...history, ...added], tools: o.registry.specs },
            }),
        );
      throw error;
    }
    o.onModelCall?.(reply);
    if (reply.stopReason === 'aborted' || o.signal?.aborted) throw new AbortedError();
    await sayIfCut(reply, [...history, ...added]);
    added.push(reply);
    return reply;
  };

  for (let turn = 1; turn <= o.maxTurns; turn++) {
    const reply = await call('auto');
    const calls = reply.content.filter((p): p is ToolCall => p.type === 'toolCall');
    if (calls.length === 0) {
      if (reply.stopReason === 'length') {
        emit({ type: 'notice', message: 'The answer was cut off at the output token limit.' });
        return { messages: added, text: textOf(reply), modelCalls, end: 'length' };
      }
      return {
        messages: added,
        text: textOf(reply),
        modelCalls,
        end: reply.stopReason === 'refusal' ? 'refusal' : 'answered',
      };
    }

    // A repeat of a call already refused this turn: the model is stuck, so nothing in this reply runs.
    if (calls.some((c) => failedSignatures.has(callSignature(c)))) {
      for (const c of calls) {
        added.push(
          result(c, 'Not run: this reply repeated a call that was already refused as invalid.', true),
        );
      }
      const message = 'Stopped: the model repeated a tool call that had already been refused as invalid.';
      emit({ type: 'notice', message });
      return { messages: added, text: textOf(reply), modelCalls, end: 'repeat' };
    }

    added.push(...(await runCalls(calls, reply, failedSignatures, o)));

    if (turn === o.maxTurns) {
      emit({
        type: 'notice',
        message: `Stopped after ${o.maxTurns} tool turns (--max-turns); asking for an answer without tools.`,
      });
      const final = await call('none');
      // Some servers (Ollama, llama.cpp) ignore tool_choice "none": calls in this last reply are not run,
      // but each still gets its one result, or the history would be one the APIs refuse.
      const late = final.content.filter((p): p is ToolCall => p.type === 'toolCall');
      for (const c of late)
        added.push(result(c, `Not run: the tool-turn budget (--max-turns ${o.maxTurns}) is spent.`, true));
      const text = textOf(final);
      if (late.length && !text.trim())
        emit({
          type: 'notice',
          message: 'The model asked for more tools instead of answering: no answer this turn.',
        });
      return { messages: added, text, modelCalls, end: 'budget' };
    }
  }
  throw new Error('unreachable: maxTurns must be at least 1');
}

async function runCalls(
  calls: ToolCall[],
  reply: AssistantMessage,
  failedSignatures: Set<string>,
  o: TurnOptions,
): Promise<ToolResultMessage[]> {
  const lastPart = reply.content.at(-1);
  // First decide each call in order (asking the user one question at a time), then run the approved
  // ones in parallel. Results go back in call order, one per call id.
  const decided: (ToolResultMessage | (() => Promise<ToolResultMessage>))[] = [];
  for (const c of calls) {
    // A reply cut off by the token limit never runs the call it was in the middle of.
    const cutOff =
      reply.stopReason === 'length' &&
      (c === lastPart || parseToolArguments(c.argumentsText).error !== undefined);
    if (cutOff) {
      decided.push(
        result(
          c,
          'Not run: your reply was cut off by the output token limit while writing this call. Send it again with shorter arguments.',
          true,
        ),
      );
      continue;
    }
    const v = await validateCall(c, o.registry);
    if (!v.ok) {
      failedSignatures.add(callSignature(c));
      decided.push(result(c, v.error, true));
      continue;
    }
    if (v.tool.needsConfirmation && !o.autoApprove) {
      if (!o.confirm) {
        decided.push(
          result(
            c,
            `Not run: ${c.name} needs the user's confirmation and there is no terminal to ask. The user can allow it with --yes.`,
            true,
          ),
        );
        continue;
      }
      if (!(await o.confirm(c, v.input))) {
        decided.push(result(c, 'Not run: the user declined this call.', true));
        continue;
      }
    }
    decided.push(async () => {
      o.onEvent?.({ type: 'toolRun', call: c, input: v.input });
      try {
        return result(
          c,
          await v.tool.run(v.input, { signal: o.signal ?? new AbortController().signal }),
          false,
        );
      } catch (error) {
        if (o.signal?.aborted) throw new AbortedError();
        return result(c, `${c.name} failed: ${errorMessage(error)}`, true);
      }
    });
  }
  return Promise.all(
    decided.map(async (d, i) => {
      const r = typeof d === 'function' ? await d() : d;
      o.onEvent?.({ type: 'toolResult', call: calls[i]!, result: r });
      return r;
    }),
  );
}
