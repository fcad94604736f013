import { runTurn, type TurnOptions, type TurnResult } from '../loop/run-turn.js';
import type { Price } from '../providers/prices.js';
import { recordCall } from '../store/ledger.js';
import type { Db } from '../store/open.js';
import { emptyUsage, type Message } from '../types.js';
import { trimHistory } from './history.js';

export interface SessionOptions extends Omit<TurnOptions, 'signal' | 'onEvent' | 'confirm' | 'onModelCall'> {
  db: Db;
  runId: string;
  userPrices?: Record<string, Price>;
  /** Older exchanges are dropped beyond this many characters of history (about 4 characters a token). */
  maxHistoryChars?: number;
}

/** About 100,000 tokens: room for the answer within every supported model's context. */
const DEFAULT_HISTORY_CHARS = 400_000;

/**
 * A conversation: its history and its ledger rows. A turn's messages join the history only when the
 * turn succeeds, so a failure or a Ctrl-C leaves it exactly as it was.
 */
export class ChatSession {
  private messages: Message[] = [];

  constructor(private readonly options: SessionOptions) {}

  get history(): readonly Message[] {
    return this.messages;
  }

  get runId(): string {
    return this.options.runId;
  }

  async send(
    text: string,
    extra: Pick<TurnOptions, 'signal' | 'onEvent' | 'confirm'> = {},
  ): Promise<TurnResult> {
    const { db, runId, userPrices, maxHistoryChars, ...turn } = this.options;
    const trimmed = trimHistory(this.messages, (maxHistoryChars ?? DEFAULT_HISTORY_CHARS) - text.length);
    if (trimmed.dropped > 0) {
      extra.onEvent?.({
        type: 'notice',
        message: `(The ${trimmed.dropped} oldest exchange(s) no longer fit the context and were left out.)`,
      });
      this.messages = trimmed.messages;
    }
    const result = await runTurn(this.messages, text, {
      ...turn,
      ...extra,
      onModelCall: (m) =>
        recordCall(
          db,
          { command: 'chat', runId, step: 'chat', provider: m.provider, model: m.model, usage: m.usage },
          userPrices,
        ),
    });
    this.messages = [...this.messages, ...result.messages];
    return result;
  }

  /** Adds a finished exchange that happened outside the loop (a /research answer). */
  remember(question: string, answer: string): void {
    this.messages = [
      ...this.messages,
      { role: 'user', content: question },
      {
        role: 'assistant',
        content: [{ type: 'text', text: answer }],
        provider: this.options.provider.name,
        model: this.options.model,
        usage: emptyUsage(),
        stopReason: 'stop',
      },
    ];
  }

  clear(): void {
    this.messages = [];
  }
}
