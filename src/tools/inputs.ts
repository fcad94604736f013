import { z } from 'zod';

// The built-in tools' arguments as zod schemas, loaded with zod on the first call to check (zod takes about
// 45 ms of CPU to load, which the chat's first request need not wait for). What providers are sent is the
// static JSON Schema beside each tool (parameters.ts), kept equal to jsonSchemaOf(these) by
// test/tools/parameters.test.ts.

export const calculatorInput = z.strictObject({
  expression: z.string().min(1).describe('For example "(1234 * 5678) / 2" or "2^-1"'),
});

export const readUrlInput = z.strictObject({
  url: z.string().min(1).describe('An absolute http(s) URL'),
});

export const webSearchInput = z.strictObject({
  query: z.string().min(1).describe('What to search for, as you would type it into a search engine'),
  count: z.number().int().min(1).max(10).optional().describe('How many results, 1 to 10 (default 5)'),
});

export const saveNoteInput = z.strictObject({
  content: z.string().describe('The note itself, self-contained'),
  title: z.string().optional().describe('A short title'),
  tags: z.array(z.string()).max(10).optional().describe('A few short tags'),
});

export const searchNotesInput = z.strictObject({
  query: z.string().optional().describe('Words to search for; omit to list the newest notes'),
  limit: z.number().int().min(1).max(20).optional(),
});

/** zod → JSON Schema, in the form all three wire APIs accept (no `$schema`). */
export function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _ignored, ...parameters } = z.toJSONSchema(schema, { io: 'input' }) as Record<
    string,
    unknown
  >;
  return parameters;
}

/** A tool's `input` and `parameters` from one zod schema, for tools whose start-up time does not matter. */
export function zodInput<Input>(schema: z.ZodType<Input>): {
  input: () => Promise<z.ZodType<Input>>;
  parameters: Record<string, unknown>;
} {
  return { input: async () => schema, parameters: jsonSchemaOf(schema) };
}
