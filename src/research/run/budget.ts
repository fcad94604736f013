import { AgentError, UsageError } from '../../errors.js';
import { formatUsd } from '../../money.js';
import { priceFilePath } from '../../providers/price-file.js';
import { costOf, findPrice, type Price } from '../../providers/prices.js';
import type { ModelSetup, ResearchOptions } from '../types.js';
import { Purse } from './purse.js';

// A spending cap (`--max-cost`) for a research run: a model call starts only when what has been spent,
// plus the worst case of the calls in flight and of this one, plus the worst case of the write step that
// must still follow, fits under the cap. The worst case is the input estimated from the request's text
// and the output at its max_tokens cap, so the cap is exceeded only by the error of the input estimate.

/**
 * Characters per token for the input estimate. The usual rule of thumb is about 4 for English prose;
 * 3 errs on the side of spending less, since code, numbers and other languages take more tokens.
 */
export const CHARS_PER_TOKEN = 3;
/** What one source adds to the write prompt besides its notes: its number, title and location. */
const NOTE_HEAD_CHARS = 300;

export const estimateTokens = (chars: number): number => Math.ceil(chars / CHARS_PER_TOKEN);

/**
 * The most a call can cost: every input token at the dearer of the input and cache-write prices (a
 * prompt may be written to the cache), every output token up to the cap.
 */
export function worstCase(price: Price, inputChars: number, maxTokens: number): number {
  const input = estimateTokens(inputChars);
  const dear = { ...price, input: Math.max(price.input, price.cacheWrite) };
  if (dear.longPrompt)
    dear.longPrompt = {
      ...dear.longPrompt,
      input: Math.max(dear.longPrompt.input, dear.longPrompt.cacheWrite),
    };
  return costOf({ input, output: maxTokens, cacheRead: 0, cacheWrite: 0, reasoning: 0 }, dear);
}

/**
 * A dollar amount for `--max-cost` or `AGENT_MAX_COST`: digits with an optional `$` and decimals, more
 * than zero. Undefined when it is not one.
 */
export function parseUsd(text: string): number | undefined {
  const match = /^\s*\$?(\d+(?:\.\d*)?|\.\d+)\s*$/.exec(text);
  const n = match ? Number(match[1]) : Number.NaN;
  return Number.isFinite(n) && n > 0 ? n : undefined;
}

export const USD_EXPECTED = 'expected an amount in US dollars greater than 0, like 0.50';

/** `--max-cost` when given, else `AGENT_MAX_COST` (empty means unset, as for the other variables). */
export function maxCostSetting(flag: number | undefined, env: NodeJS.ProcessEnv): number | undefined {
  if (flag !== undefined) return flag;
  const raw = env.AGENT_MAX_COST;
  if (!raw) return undefined;
  const n = parseUsd(raw);
  if (n === undefined) throw new UsageError(`AGENT_MAX_COST=${raw} is not a valid cap: ${USD_EXPECTED}.`);
  return n;
}

/** A cap is only as good as the prices behind it: every model it covers needs one. */
export function requirePrices(
  provider: string,
  models: string[],
  userPrices: Record<string, Price>,
  env: NodeJS.ProcessEnv = process.env,
): (model: string) => Price {
  for (const model of new Set(models))
    if (!findPrice(provider, model, userPrices))
      throw new UsageError(
        `--max-cost needs the price of ${model}, which is not known. Add it to your price file ${priceFilePath(env)} (AGENT_PRICES sets another), e.g. {"${model}": {"input": 3, "output": 15}} in USD per million tokens.`,
      );
  return (model) => findPrice(provider, model, userPrices)!;
}

/** A call refused by the cap: the chain stops collecting and writes from what it has. */
export class CapReached extends AgentError {
  constructor(step: string) {
    super(`The ${step} step would take this run past its spending cap (--max-cost).`);
  }
}

export interface CallPlan {
  model: string;
  /** Characters of the request (system prompt and messages). */
  inputChars: number;
  maxTokens: number;
  /** An extraction: its output becomes part of the write step's input. */
  notes?: boolean;
  /** The write step itself: always admitted, its cost was held back all along. */
  final?: boolean;
}

export interface Ticket {
  /** The call is over: what it cost, and for an extraction how many characters of notes it gave. */
  settle(costUsd: number | null, noteChars?: number): void;
}

export interface BudgetOptions {
  limitUsd: number;
  price: (model: string) => Price;
  /** The model, output cap and fixed prompt text (system prompt, question) of the write step. */
  write: { model: string; maxTokens: number; baseChars: number };
  /** A batch's purse, shared by its runs (this run joins it under `runId`); else the run has its own. */
  purse?: Purse;
  runId?: string;
}

/** The cap's bookkeeping for one run. */
export class Budget {
  readonly limitUsd: number;
  private readonly purse: Purse;
  /** Characters of notes gathered, and output tokens of extractions still running (future notes). */
  private noteChars = 0;
  private pendingNoteTokens = 0;
  private stop = false;
  private written = false;

  constructor(private readonly o: BudgetOptions) {
    this.purse = o.purse ?? new Purse(o.limitUsd);
    this.limitUsd = this.purse.limitUsd;
  }

  /** What the purse has spent: this run's, or under a batch the whole batch's. */
  get spentUsd(): number {
    return this.purse.spent;
  }

  /** A batch's cap, shared with other runs. */
  get shared(): boolean {
    return this.purse.shared;
  }

  /** What is left under the cap for this run: the others' calls in flight and write steps held back. */
  get leftUsd(): number {
    const p = this.purse;
    return Math.max(0, p.limitUsd - p.spent - p.reserved - p.othersReserve(this));
  }

  /** Whether a call was refused: collection has stopped. */
  get stopped(): boolean {
    return this.stop;
  }

  /** The worst case of the write step over the notes gathered so far and those still being extracted. */
  writeReserve(extraNoteTokens = 0): number {
    if (this.written) return 0;
    const w = this.o.write;
    const chars = w.baseChars + this.noteChars + (this.pendingNoteTokens + extraNoteTokens) * CHARS_PER_TOKEN;
    return worstCase(this.o.price(w.model), chars, w.maxTokens);
  }

  /** What this call, on top of everything else, would bring the run to at worst. */
  private need(call: CallPlan, cost: number): number {
    const p = this.purse;
    if (call.final) return p.spent + p.reserved + cost;
    const writes = this.writeReserve(call.notes ? call.maxTokens : 0) + p.othersReserve(this);
    return p.spent + p.reserved + cost + writes;
  }

  /**
   * A ticket for the call when it fits under the cap. While other calls are in flight it waits for them
   * (their unused reservations come back); when nothing is in flight and it still does not fit, the
   * budget stops and every later call (but the write step) is refused: undefined.
   */
  async admit(call: CallPlan): Promise<Ticket | undefined> {
    const cost = worstCase(this.o.price(call.model), call.inputChars, call.maxTokens);
    const p = this.purse;
    for (;;) {
      if (!call.final && this.stop) return undefined;
      if (call.final || this.need(call, cost) <= this.limitUsd) break;
      if (!p.mayFree(this)) {
        this.stop = true;
        return undefined;
      }
      await p.wait(this);
    }
    // A batch's run holds back its write step from its first call on (not while it waits for room).
    if (this.o.runId) p.join(this.o.runId, this);
    p.reserved += cost;
    p.inFlight++;
    if (call.notes) this.pendingNoteTokens += call.maxTokens;
    let settled = false;
    return {
      settle: (costUsd, noteChars = 0) => {
        if (settled) return;
        settled = true;
        p.reserved -= cost;
        p.inFlight--;
        p.spent += costUsd ?? cost;
        if (call.final) this.written = true;
        if (call.notes) {
          this.pendingNoteTokens -= call.maxTokens;
          this.noteChars += noteChars + NOTE_HEAD_CHARS;
        }
        p.wake();
      },
    };
  }

  /** Notes that cost nothing this run (facts from the extraction cache) still go into the write step. */
  noted(noteChars: number): void {
    this.noteChars += noteChars + NOTE_HEAD_CHARS;
  }

  /** The least cap that covers planning and writing at their worst, for the message of a cap too low. */
  floor(plan: CallPlan): number {
    return worstCase(this.o.price(plan.model), plan.inputChars, plan.maxTokens) + this.writeReserve();
  }
}

/** The cap for a research run over these models, or undefined when none is set. */
export function runBudget(
  o: Pick<ResearchOptions, 'maxCostUsd' | 'userPrices' | 'env' | 'question' | 'purse' | 'runId'>,
  m: ModelSetup,
  write: { system: string; maxTokens: number; prompt: (question: string, notes: []) => string },
): Budget | undefined {
  if (o.maxCostUsd === undefined && !o.purse) return undefined;
  return new Budget({
    limitUsd: o.purse?.limitUsd ?? o.maxCostUsd!,
    purse: o.purse,
    runId: o.runId,
    price: requirePrices(m.provider.name, [m.smallModel, m.largeModel], o.userPrices ?? {}, o.env),
    write: {
      model: m.largeModel,
      maxTokens: write.maxTokens,
      baseChars: write.system.length + write.prompt(o.question, []).length,
    },
  });
}

/** The notice when the cap ends collection. */
export function capNotice(budget: Budget, read: number, collected: number): string {
  const cap = `${budget.shared ? "the batch's " : 'the '}${formatUsd(budget.limitUsd)} cap`;
  return `Stopped collecting at ${formatUsd(budget.spentUsd)} of ${cap}: ${read} of ${collected} sources read.`;
}

/**
 * A cap too low to plan and write at all: a usage error that says what would do. Under a batch's cap it
 * is this question's failure (the cap is spent or promised to the questions in progress), not a usage error.
 */
export function capTooLow(budget: Budget, plan: CallPlan): AgentError {
  const floor = budget.floor(plan);
  if (budget.shared)
    return new AgentError(
      `Not started: the batch's ${formatUsd(budget.limitUsd)} cap (--max-cost) has ${formatUsd(budget.leftUsd)} left, less than planning and writing this question can cost at worst (${formatUsd(floor)} with ${plan.model}). Raise the cap and run the batch again: answered questions are skipped.`,
    );
  return new UsageError(
    `The ${formatUsd(budget.limitUsd)} cap (--max-cost) does not cover planning and writing at their worst case (${formatUsd(floor)} with ${plan.model}): raise it to at least ${formatUsd(Math.ceil(floor * 100) / 100)}.`,
  );
}
