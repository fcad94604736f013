import { AbortedError, AgentError, errorMessage } from '../errors.js';
import { cancelledMessage } from '../providers/partial.js';
import { costOf, findPrice, type PriceTable } from '../providers/prices.js';
import { StoreError } from '../store/errors.js';
import type { Store } from '../store/store.js';
import type { LedgerEntry } from '../store/types.js';
import {
  type AssistantMessage,
  addUsage,
  emptyUsage,
  type Message,
  type Provider,
  type Usage,
} from '../types.js';
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
  return async (
    step: ModelStep,
    model: string,
    system: string,
    messages: Message[],
    onText?: (d: string) => void,
    maxTokens: number = MAX_TOKENS[step],
  ) => {
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
    let reply: AssistantMessage;
    try {
      const call = () =>
        provider.complete({
          model,
          system,
          messages,
          maxTokens,
          signal: o.signal,
          onEvent: onText ? (e) => e.type === 'text' && onText(e.delta) : undefined,
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
      if (error instanceof AbortedError) throw error;
      if (o.signal?.aborted) throw new AbortedError();
      throw new AgentError(`The ${step} step failed: ${errorMessage(error)}`, { cause: error });
    }
    const text = reply.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('');
    let costUsd: number | null = null;
    try {
      costUsd = await record(step, reply);
    } finally {
      ticket?.settle(costUsd, text.length);
    }
    return { text, stopReason: reply.stopReason };
  };
}

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
