import { AbortedError, AgentError, errorMessage } from '../errors.js';
import { contextRefusal, cutFix, promptTokens, promptWasCut } from '../providers/context.js';
import { cancelledMessage } from '../providers/partial.js';
import { costOf, findPrice, type PriceTable } from '../providers/prices.js';
import { requestSignal } from '../providers/request-signal.js';
import { StoreError } from '../store/errors.js';
import type { Store } from '../store/store.js';
import type { LedgerEntry } from '../store/types.js';
import {
  type AssistantMessage,
  addUsage,
  emptyUsage,
  type Message,
  type Provider,
  type StopReason,
  type StreamEvent,
  type Usage,
} from '../types.js';
import { windowFor } from './fit.js';
import { REPEAT_SPAN, RepeatWatch } from './repeat-watch.js';
import { type Budget, CapReached } from './run/budget.js';
import type { ResearchEvent, ResearchOptions, ResearchResult } from './types.js';

// How the research chain calls a model: every call recorded in the ledger and the run's totals, whatever
// step it serves; and the small concurrency helpers the chain runs its calls with.

/**
 * Output caps per step. Generous on purpose: reasoning and thinking tokens count against them, and only
 * the tokens actually used are billed. Reports get more room than short answers.
 */
export const MAX_TOKENS = {
  plan: 4096,
  followup: 4096,
  extract: 8192,
  write: 16_384,
  report: 32_000,
  verify: 4096,
};

export type Emit = (e: ResearchEvent) => void;
export type ModelStep = 'plan' | 'followup' | 'extract' | 'write' | 'verify';

export type Caller = ReturnType<typeof modelCaller>;

export interface CallExtra {
  /** A JSON schema for the reply (Ollama holds the model to it; others are asked in the prompt). */
  jsonSchema?: Record<string, unknown>;
  /** The step needs its whole reply (a plan, an extraction's JSON): one cut at the output limit is asked again. */
  whole?: boolean;
  /** What the call is about, for the lines that say a prompt was cut or a reply looped. */
  what?: string;
}

export interface CallResult {
  text: string;
  stopReason: StopReason;
  /** The server read only part of the prompt: the reply is not the whole source's (or question's). */
  cut?: boolean;
  /** The reply repeated itself and was stopped; `text` is what came before the repeats. */
  repeated?: boolean;
}

/** One model call: recorded in the ledger and reported, whatever step it serves. */
export function modelCaller(
  o: ResearchOptions,
  provider: Provider,
  runId: string,
  ledger: RunLedger,
  emit: Emit,
  budget?: Budget,
) {
  const record = async (step: string, reply: AssistantMessage, cancelled = false): Promise<number | null> => {
    const entry: LedgerEntry = {
      command: 'research',
      runId,
      step,
      provider: reply.provider,
      model: reply.model,
      usage: reply.usage,
      cancelled,
      ...(o.batchId ? { batchId: o.batchId } : {}),
    };
    let costUsd: number | null;
    try {
      costUsd = await o.store.ledger.record(entry, o.userPrices);
    } catch (error) {
      // The database server went away: the call was made and is billed all the same, so it is kept to be
      // recorded when the server is back (RunLedger.flush, at the end of the run, whatever its end).
      if (!(error instanceof StoreError && error.problem === 'offline')) throw error;
      const price = findPrice(reply.provider, reply.model, o.userPrices);
      costUsd = price ? costOf(reply.usage, price) : null;
      ledger.keep(entry);
    }
    ledger.add(reply, costUsd);
    emit({ type: 'spend', step, model: reply.model, usage: reply.usage, costUsd });
    return costUsd;
  };
  /** One request, recorded; a stream that repeats itself is stopped, a prompt the server cut is said. */
  const attempt = async (
    step: ModelStep,
    model: string,
    system: string,
    messages: Message[],
    onText: ((d: string) => void) | undefined,
    maxTokens: number,
    extra: CallExtra,
    estimated: number,
    window: number | undefined,
  ): Promise<CallResult> => {
    if (o.signal?.aborted) throw new AbortedError();
    // Under a cap the call waits for room, or is refused (the request's size stands for its input).
    const ticket = await budget?.admit({
      model,
      inputChars: system.length + JSON.stringify(messages).length,
      maxTokens,
      notes: step === 'extract',
      final: step === 'write',
    });
    if (budget && !ticket) throw new CapReached(step);
    // Cancelled while waiting for room: nothing was sent, so nothing is recorded.
    if (o.signal?.aborted) {
      ticket?.settle(0);
      throw new AbortedError();
    }
    const about = extra.what ? ` for ${extra.what}` : '';
    // The call's own signal: the run's, and this watch's when the stream loops.
    const own = requestSignal(o.signal);
    const stop = new AbortController();
    own.signal?.addEventListener('abort', () => stop.abort(), { once: true });
    const watch = new RepeatWatch();
    const thinking = new RepeatWatch();
    let repeated: RepeatWatch | undefined;
    const onEvent = (e: StreamEvent) => {
      if (e.type === 'text') onText?.(e.delta);
      if (repeated || e.type === 'toolCallStart') return;
      const w = e.type === 'text' ? watch : thinking;
      if (w.push(e.delta)) {
        repeated = w;
        stop.abort();
      }
    };
    let reply: AssistantMessage;
    try {
      const call = () =>
        provider.complete({
          model,
          system,
          messages,
          maxTokens,
          signal: stop.signal,
          onEvent,
          ...(extra.jsonSchema ? { jsonSchema: extra.jsonSchema } : {}),
        });
      reply = await (o.callSlots ? o.callSlots(provider.name, call) : call());
    } catch (error) {
      // A cancelled call is billed all the same: record what is known of it. A failed call gives its
      // room back, so that calls waiting for room are not kept waiting.
      // A call cancelled before its reply began was sent all the same: it is recorded as cancelled, its
      // input estimated from the request (as partial.ts does), so the ledger shows every call made.
      const partial =
        error instanceof AbortedError
          ? (error.partial ??
            cancelledMessage({
              provider: provider.name,
              model,
              content: [],
              requestBody: { system, messages },
            }))
          : undefined;
      let cost: number | null = 0;
      try {
        if (partial) cost = await record(step, partial, true);
      } finally {
        ticket?.settle(cost);
      }
      if (repeated && error instanceof AbortedError && !o.signal?.aborted) {
        emit({
          type: 'notice',
          message: `The ${step} reply${about} was repeating itself (the same ${REPEAT_SPAN} characters three times): stopped there, and what came before the repeats is used.`,
        });
        return { text: watch.beforeRepeats(), stopReason: 'length', repeated: true };
      }
      if (error instanceof AbortedError) throw error;
      if (o.signal?.aborted) throw new AbortedError();
      throw new AgentError(`The ${step} step failed: ${errorMessage(error)}`, { cause: error });
    } finally {
      own.release();
    }
    const text = reply.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('');
    let costUsd: number | null = null;
    try {
      costUsd = await record(step, reply);
    } finally {
      ticket?.settle(costUsd, text.length);
    }
    // The server read less than was sent (see context.ts): said, and the reply marked as from part of it.
    const read = reply.usage.input + reply.usage.cacheRead + reply.usage.cacheWrite;
    const cut = provider.contextTokens !== undefined && promptWasCut({ estimated, read, window });
    if (cut)
      emit({
        type: 'notice',
        message: `The server cut the ${step} prompt${about}: it read ${formatTokens(read)} of about ${formatTokens(estimated)} tokens, so the reply is from part of it. To fix: ${cutFix(provider.name, o.env)}.`,
      });
    return { text, stopReason: reply.stopReason, ...(cut ? { cut } : {}) };
  };

  /**
   * One model call, fitted to the model's context where it is known: the reply's budget leaves room for
   * the prompt. A server that refuses the request as longer than its context is asked once more with the
   * budget it leaves (a prompt too long itself is the caller's to split: the error goes up). A step that
   * needs its whole reply and was cut at the output limit is asked once more with twice the room.
   */
  return async (
    step: ModelStep,
    model: string,
    system: string,
    messages: Message[],
    onText?: (d: string) => void,
    maxTokens: number = MAX_TOKENS[step],
    extra: CallExtra = {},
  ): Promise<CallResult> => {
    const estimated = promptTokens({ system, messages });
    let window = await windowFor(provider, model, estimated);
    const room = (wanted: number, prompt = estimated) =>
      window === undefined ? wanted : Math.max(256, Math.min(wanted, window - prompt - 64));
    let budgetTokens = room(maxTokens);
    const once = (tokens: number) =>
      attempt(step, model, system, messages, onText, tokens, extra, estimated, window);
    let result: CallResult;
    try {
      result = await once(budgetTokens);
    } catch (error) {
      const refusal = contextRefusal((error as { cause?: unknown }).cause);
      const prompt = refusal?.promptTokens ?? estimated;
      if (!refusal || prompt + 256 >= refusal.maxTokens) throw error;
      window = refusal.maxTokens;
      budgetTokens = room(budgetTokens, prompt);
      result = await once(budgetTokens);
    }
    if (!extra.whole || result.stopReason !== 'length' || result.repeated) return result;
    const more = room(budgetTokens * 2);
    if (more > budgetTokens) result = await once(more);
    if (result.stopReason === 'length')
      emit({
        type: 'notice',
        message: `The ${step} reply${extra.what ? ` for ${extra.what}` : ''} was cut off at its output limit (${formatTokens(Math.max(more, budgetTokens))} tokens)${more > budgetTokens ? ', asked twice' : ''}: what arrived is used.`,
      });
    return result;
  };
}

const formatTokens = (n: number) => n.toLocaleString('en-US');

/** The run's token and dollar totals; dollars become unknown (null) once any call has no price. */
export class RunLedger {
  private usage = emptyUsage();
  private calls = 0;
  private cost: number | null = 0;
  /** Calls made while the database server was away, in order, to be recorded when it is back. */
  private unrecorded: LedgerEntry[] = [];

  keep(entry: LedgerEntry): void {
    this.unrecorded.push(entry);
  }

  /** Records the calls kept while the server was away; how many could still not be recorded. */
  async flush(store: Store, prices?: PriceTable): Promise<number> {
    while (this.unrecorded.length > 0) {
      try {
        await store.ledger.record(this.unrecorded[0]!, prices);
      } catch {
        return this.unrecorded.length;
      }
      this.unrecorded.shift();
    }
    return 0;
  }

  add(reply: { usage: Usage }, costUsd: number | null): void {
    this.calls++;
    this.usage = addUsage(this.usage, reply.usage);
    this.cost = this.cost === null || costUsd === null ? null : this.cost + costUsd;
  }

  totals(): ResearchResult['usage'] {
    return {
      calls: this.calls,
      inputTokens: this.usage.input,
      outputTokens: this.usage.output,
      cacheReadTokens: this.usage.cacheRead,
      cacheWriteTokens: this.usage.cacheWrite,
      reasoningTokens: this.usage.reasoning,
      costUsd: this.cost,
    };
  }
}

/** Runs tasks with at most `limit` in flight, in the order they were queued. */
export function limiter(limit: number): <T>(task: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async (task) => {
    if (active >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    active++;
    try {
      return await task();
    } finally {
      active--;
      waiting.shift()?.();
    }
  };
}

/** Waits for every task, then throws the first failure (so no call is still running when the run ends). */
export async function settleAll(tasks: Promise<void>[]): Promise<void> {
  const settled = await Promise.allSettled(tasks);
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) throw failed.reason;
}
