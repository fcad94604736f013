import { randomUUID } from 'node:crypto';
import { runTurn, type TurnOptions, type TurnResult } from '../loop/run-turn.js';
import type { Price } from '../providers/prices.js';
import { StoreError } from '../store/errors.js';
import type { Store } from '../store/store.js';
import { emptyUsage, type Message } from '../types.js';
import { trimHistory } from './history.js';

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
    const trimmed = trimHistory(this.messages, (maxHistoryChars ?? DEFAULT_HISTORY_CHARS) - text.length);
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

  /** Whether the conversation is still being saved. */
  get saved(): boolean {
    return this.unsaved === undefined;
  }

  /**
   * A write that fails for the storage (full disk, read-only or damaged database) stops the saving, said
   * once, and the conversation goes on in memory; a session saved only in part would be misleading.
   */
  private async saving<T>(onEvent: TurnOptions['onEvent'], write: () => Promise<T>): Promise<T | undefined> {
    if (this.unsaved) return undefined;
    try {
      return await write();
    } catch (error) {
      if (!(error instanceof StoreError)) throw error;
      this.unsaved = error;
      this.tell(onEvent);
      return undefined;
    }
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
    const id = await this.saving(onEvent, () =>
      this.options.store.sessions.saveExchange(this.sessionId, this.run, {
        provider: this.options.provider.name,
        model: this.options.model,
        messages: exchange,
      }),
    );
    if (id !== undefined) this.sessionId = id;
  }
}
