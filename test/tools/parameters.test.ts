import { describe, expect, it } from 'vitest';
import { calculatorTool } from '../../src/tools/calculator.js';
import { jsonSchemaOf } from '../../src/tools/inputs.js';
import { saveNoteTool, searchNotesTool } from '../../src/tools/notes.js';
import { readUrlTool } from '../../src/tools/read-url.js';
import { toToolSpec } from '../../src/tools/registry.js';
import type { ZodTool } from '../../src/tools/tool.js';
import { webSearchTool } from '../../src/tools/web-search.js';

// The built-in tools send a written-out JSON Schema (so that zod loads only when a call is checked): it
// must be what zod makes of the schema the arguments are checked against, key for key and in order, so
// that providers see the same bytes (and cached prompt prefixes stay valid).
const notes = {} as Parameters<typeof saveNoteTool>[0];
const builtIn = [
  calculatorTool,
  readUrlTool({}),
  webSearchTool(undefined),
  saveNoteTool(notes),
  searchNotesTool(notes),
] as ZodTool<unknown>[];

describe('built-in tool parameters', () => {
  it.each(builtIn.map((t) => [t.name, t] as const))(
    '%s sends the JSON Schema of the zod schema its arguments are checked against',
    async (_name, tool) => {
      const fromZod = jsonSchemaOf(await tool.input());
      expect(JSON.stringify(toToolSpec(tool).parameters)).toBe(JSON.stringify(fromZod));
    },
  );

  it('the calculator sends exactly what providers were sent before the schemas were written out', () => {
    expect(JSON.stringify(toToolSpec(calculatorTool).parameters)).toBe(
      '{"type":"object","properties":{"expression":{"type":"string","minLength":1,"description":"For example \\"(1234 * 5678) / 2\\" or \\"2^-1\\""}},"required":["expression"],"additionalProperties":false}',
    );
  });
});
