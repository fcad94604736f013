import type { z } from 'zod';

export interface ToolContext {
  signal: AbortSignal;
}

/**
 * A tool the model may ask for. The model only asks: the loop validates the input against `input`
 * (a strict zod object), runs `run`, and sends back exactly one result per call.
 */
export interface Tool<Input = Record<string, unknown>> {
  name: string;
  /** Says what the tool does and when to call it: the model reads this. */
  description: string;
  input: z.ZodType<Input>;
  /** Ask the user before running (or require --yes when there is nobody to ask). */
  needsConfirmation?: boolean;
  /** Returns the result text for the model; throws (ideally a ToolError) when the call failed. */
  run(input: Input, context: ToolContext): Promise<string>;
}

/** A failure worth telling the model about in its own words: becomes an error result, never a crash. */
export class ToolError extends Error {}

/** Erases the input type, for lists of tools with different inputs. */
// biome-ignore lint/suspicious/noExplicitAny: a registry holds tools of every input type
export type AnyTool = Tool<any>;
