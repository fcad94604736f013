import type { z } from 'zod';

export interface ToolContext {
  signal: AbortSignal;
}

/** The outcome of checking a call's arguments; `error` says what to fix, without the tool's name. */
export type ArgumentCheck<Input = unknown> = { ok: true; value: Input } | { ok: false; error: string };

interface ToolBase<Input> {
  name: string;
  /** Says what the tool does and when to call it: the model reads this. */
  description: string;
  /** Ask the user before running (or require --yes when there is nobody to ask). */
  needsConfirmation?: boolean;
  /** False once the tool can no longer work (its MCP server stopped): it is then no longer offered. */
  available?(): boolean;
  /** Returns the result text for the model; throws (ideally a ToolError) when the call failed. */
  run(input: Input, context: ToolContext): Promise<string>;
}

/**
 * A built-in tool: its input is a strict zod object, loaded (with zod) on the first call to check, and
 * sent to providers as `parameters`, that object's JSON Schema (see inputs.ts and parameters.ts).
 */
export interface ZodTool<Input> extends ToolBase<Input> {
  input(): Promise<z.ZodType<Input>>;
  parameters: Record<string, unknown>;
  validate?: undefined;
}

/**
 * A tool described by someone else (an MCP server): the JSON Schema sent to providers as it is, and
 * its own check of the arguments, run before the tool is.
 */
export interface SchemaTool<Input> extends ToolBase<Input> {
  input?: undefined;
  parameters: Record<string, unknown>;
  validate(args: unknown): ArgumentCheck<Input>;
}

/**
 * A tool the model may ask for. The model only asks: the loop validates the input (`input` or
 * `validate`), runs `run`, and sends back exactly one result per call.
 */
export type Tool<Input = Record<string, unknown>> = ZodTool<Input> | SchemaTool<Input>;

/** A failure worth telling the model about in its own words: becomes an error result, never a crash. */
export class ToolError extends Error {}

/** Erases the input type, for lists of tools with different inputs. */
// biome-ignore lint/suspicious/noExplicitAny: a registry holds tools of every input type
export type AnyTool = Tool<any>;
