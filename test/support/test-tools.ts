import { z } from 'zod';
import { zodInput } from '../../src/tools/inputs.js';
import type { AnyTool } from '../../src/tools/tool.js';

/** Small tools for loop tests, counting how often each really ran. */
export function testTools() {
  const runs: string[] = [];
  let active = 0;
  let maxActive = 0;
  const add: AnyTool = {
    name: 'add',
    description: 'Adds two numbers.',
    ...zodInput(z.strictObject({ a: z.number(), b: z.number() })),
    async run({ a, b }) {
      runs.push('add');
      active++;
      maxActive = Math.max(maxActive, active);
      await new Promise((r) => setTimeout(r, 5));
      active--;
      return String(a + b);
    },
  };
  const fail: AnyTool = {
    name: 'fail',
    description: 'Always throws.',
    ...zodInput(z.strictObject({})),
    async run() {
      runs.push('fail');
      throw new Error('disk on fire');
    },
  };
  const guarded: AnyTool = {
    name: 'delete_everything',
    description: 'Needs confirmation.',
    ...zodInput(z.strictObject({ really: z.boolean() })),
    needsConfirmation: true,
    async run() {
      runs.push('delete_everything');
      return 'deleted';
    },
  };
  return { tools: [add, fail, guarded], runs, maxActive: () => maxActive };
}
