import { randomUUID } from 'node:crypto';
import { runTurn, type TurnOptions, type TurnResult } from '../loop/run-turn.js';
import { promptTokens, SMALLEST_CONTEXT } from '../providers/context.js';
import type { Price } from '../providers/prices.js';
import { StoreError } from '../store/errors.js';
import type { Store } from '../store/store.js';
import { emptyUsage, type Message } from '../types.js';
import { historyCharsFor, trimHistory } from './history.js';

export interface SessionOptions extends Omit<TurnOptions, 'signal' | 'onEvent' | 'confirm' | 'onModelCall'> {
  store: Store;
  userPrices?: Record<string, Price>;
  /** Older exchanges are dropped beyond this many characters of history (about 4 characters a token). */
  maxHistoryChars?: number;
  /**
   * A saved session to continue: its id, the ledger run it bills under, and its history already made
   * fit for this provider and model (see adaptHistory). Without it, a new session is saved with the
   * first completed exchange; without the id and run (another person's session, read-only), so is one
   * that starts from that history.
   */
  resume?: { id?: number; runId?: string; history: readonly Message[] };
}

/** About 100,000 tokens: room for the answer within every supported model's context. */
const DEFAULT_HISTORY_CHARS = 400_000;

/**
 * A conversation: its history, its ledger rows and its saved copy. A turn's messages join the history,
 * and are saved, only when the turn succeeds, so a failure or a Ctrl-C leaves both exactly as they were.
 */
export class ChatSession {
  private messages: Message[];
  private sessionId: number | undefined;
  private run: string;
  /** Why this conversation is no longer being saved (full disk, read-only database), once it is not. */
  private unsaved: StoreError | undefined;
  private told = false;
  /** Which conversation since /clear: a write kept for later knows the session it belongs to. */
  private generation = 0;
  private readonly cleared = new Map<number, number>();

  constructor(private readonly options: SessionOptions) {
    this.messages = [...(options.resume?.history ?? [])];
    this.sessionId = options.resume?.id;
    this.run = options.resume?.runId ?? randomUUID();
  }

  get history(): readonly Message[] {
    return this.messages;
  }

  /** The ledger run this conversation's model calls are recorded under. */
  get runId(): string {
    return this.run;
  }

  /** The saved session's number; undefined until the first exchange is saved. */
  get id(): number | undefined {
    return this.sessionId;
  }

  async send(
    text: string,
    extra: Pick<TurnOptions, 'signal' | 'onEvent' | 'confirm'> = {},
  ): Promise<TurnResult> {
    const { store, userPrices, maxHistoryChars, resume: _resume, ...turn } = this.options;
    const trimmed = trimHistory(
      this.messages,
      (await this.historyLimit(text, maxHistoryChars)) - text.length,
    );
    if (trimmed.dropped > 0) {
      extra.onEvent?.({
        type: 'notice',
        message: `(The ${trimmed.dropped} oldest exchange(s) no longer fit the context and were left out.)`,
      });
      this.messages = trimmed.messages;
    }
    this.tell(extra.onEvent);
    const runId = this.run;
    // Each call's ledger row is written as the call ends; the turn ends when they are all written.
    const recorded: Promise<unknown>[] = [];
    let result: TurnResult;
    try {
      result = await runTurn(this.messages, text, {
        ...turn,
        ...extra,
        onModelCall: (m) => {
          recorded.push(
            this.saving(extra.onEvent, () =>
              store.ledger.record(
                {
                  command: 'chat',
                  runId,
                  step: 'chat',
                  provider: m.provider,
                  model: m.model,
                  usage: m.usage,
                  cancelled: m.stopReason === 'aborted',
                },
                userPrices,
              ),
            ),
          );
        },
      });
    } finally {
      await Promise.all(recorded);
    }
    await this.complete(result.messages, extra.onEvent);
    return result;
  }

  /**
   * The history's room: the setting (or about 100,000 tokens), and on a local server whose model's context
   * is known, what fits that context. Asked of the server only once the conversation could exceed the
   * smallest context any server has.
   */
  private async historyLimit(text: string, setting: number | undefined): Promise<number> {
    const limit = setting ?? DEFAULT_HISTORY_CHARS;
    const { provider, model, system, registry } = this.options;
    const messages: Message[] = [...this.messages, { role: 'user', content: text }];
    if (
      !provider.contextTokens ||
      promptTokens({ system, messages, tools: registry.specs }) <= SMALLEST_CONTEXT
    )
      return limit;
    const window = await provider.contextTokens(model);
    if (window === undefined) return limit;
    return Math.min(
      limit,
      historyCharsFor(window, (system?.length ?? 0) + JSON.stringify(registry.specs).length),
    );
  }

  /** Says once that the conversation is no longer saved; without a listener, at the next message. */
  private tell(onEvent: TurnOptions['onEvent']): void {
    if (!this.unsaved || this.told) return;
    if (!onEvent) return;
    this.told = true;
    onEvent({
      type: 'notice',
      message: `This chat is no longer being saved (${this.unsaved.message}); it goes on in memory.`,
    });
  }

  /** Whether the conversation is still being saved (writes waiting for a server to come back count as saved). */
  get saved(): boolean {
    return this.unsaved === undefined;
  }

  /** Writes (ledger rows, exchanges) waiting for the database server to come back, in order. */
  private pending: (() => Promise<unknown>)[] = [];
  /** One write at a time, in order: an exchange appended after the one that made its session. */
  private queue: Promise<unknown> = Promise.resolve();
  private offlineTold = false;

  /** How many writes are still waiting for the server. */
  get unsavedCount(): number {
    return this.pending.length;
  }

  /**
   * A write that fails for the storage (full disk, read-only or damaged database) stops the saving, said
   * once, and the conversation goes on in memory; a session saved only in part would be misleading. A
   * lost connection to a server is waited out instead: the write is kept, in order, and tried again
   * (with those before it) at the next write, or by `flush` at the end.
   */
  private saving<T>(onEvent: TurnOptions['onEvent'], write: () => Promise<T>): Promise<T | undefined> {
    const next = this.queue.then(() => this.attempt(onEvent, write));
    this.queue = next.catch(() => {});
    return next;
  }

  private async attempt<T>(onEvent: TurnOptions['onEvent'], write: () => Promise<T>): Promise<T | undefined> {
    if (this.unsaved) return undefined;
    if (this.pending.length > 0 && !(await this.retry())) {
      this.pending.push(write);
      return undefined;
    }
    try {
      return await write();
    } catch (error) {
      if (!(error instanceof StoreError)) throw error;
      if (error.problem === 'offline') {
        this.pending.push(write);
        if (!this.offlineTold) {
          this.offlineTold = true;
          onEvent?.({
            type: 'notice',
            message: `Saving is waiting for the database server (${error.message}); the chat goes on, and what it says is saved when the server is back.`,
          });
        }
        return undefined;
      }
      this.unsaved = error;
      this.tell(onEvent);
      return undefined;
    }
  }

  /** Tries the waiting writes in order; false when the server is still away (the rest keep waiting). */
  private async retry(): Promise<boolean> {
    while (this.pending.length > 0) {
      try {
        await this.pending[0]!();
      } catch (error) {
        if (error instanceof StoreError && error.problem === 'offline') return false;
        if (error instanceof StoreError) {
          this.unsaved = error;
          this.pending = [];
          return false;
        }
        throw error;
      }
      this.pending.shift();
    }
    this.offlineTold = false;
    return true;
  }

  /**
   * At the end of a chat: one more try for writes waiting for the server; how many are still unsaved
   * (the chat says so in its last line).
   */
  async flush(): Promise<number> {
    await this.queue;
    if (this.pending.length > 0 && !this.unsaved) await this.retry().catch(() => false);
    return this.pending.length;
  }

  /** Adds a finished exchange that happened outside the loop (a /research answer). */
  remember(question: string, answer: string, onEvent?: TurnOptions['onEvent']): Promise<void> {
    return this.complete(
      [
        { role: 'user', content: question },
        {
          role: 'assistant',
          content: [{ type: 'text', text: answer }],
          provider: this.options.provider.name,
          model: this.options.model,
          usage: emptyUsage(),
          stopReason: 'stop',
        },
      ],
      onEvent,
    );
  }

  /** Starts a new session; returns the number of the saved one left behind, if any. */
  clear(): number | undefined {
    const left = this.sessionId;
    if (left !== undefined) this.cleared.set(this.generation, left);
    this.generation += 1;
    this.messages = [];
    this.sessionId = undefined;
    this.run = randomUUID();
    return left;
  }

  /**
   * The exchange joins the history even when saving it fails (the user has seen the answer, and the
   * model should too). A failure of the storage stops the saving (see `saving`); any other is thrown.
   */
  private async complete(exchange: Message[], onEvent?: TurnOptions['onEvent']): Promise<void> {
    this.messages = [...this.messages, ...exchange];
    // The session and run are read when the write runs: one kept for a server that was away still
    // goes into the session the exchanges before it made.
    const run = this.run;
    const generation = this.generation;
    await this.saving(onEvent, async () => {
      const id = await this.options.store.sessions.saveExchange(
        generation === this.generation ? this.sessionId : this.cleared.get(generation),
        run,
        {
          provider: this.options.provider.name,
          model: this.options.model,
          messages: exchange,
        },
      );
      if (generation === this.generation) this.sessionId = id;
      else this.cleared.set(generation, id);
    });
  }
}
