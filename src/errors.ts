// Errors a person can act on. The CLI prints `message` (never a stack) and exits with `exitCode`.

import type { AssistantMessage } from './types.js';

export class AgentError extends Error {
  readonly exitCode: number = 1;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** A bad flag or argument: exit 2, like most Unix tools. */
export class UsageError extends AgentError {
  override readonly exitCode = 2;
}

/** Missing key, unusable path, bad config file: exit 2. */
export class ConfigError extends AgentError {
  override readonly exitCode = 2;
}

/** A model API refused or failed in a way a retry will not fix. */
export class ProviderError extends AgentError {
  constructor(
    message: string,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The user pressed Ctrl-C. */
export class AbortedError extends AgentError {
  override readonly exitCode = 130;
  /**
   * A model call cancelled mid-stream, which the provider bills all the same: what had arrived, with
   * `stopReason: 'aborted'` and the usage known at the cancel (partly estimated), for the ledger.
   */
  readonly partial?: AssistantMessage;
  constructor(options: { partial?: AssistantMessage } = {}) {
    super('Cancelled.');
    if (options.partial) this.partial = options.partial;
  }
}

export const errorMessage = (error: unknown): string =>
  error instanceof Error ? error.message : String(error);
