#!/usr/bin/env node
// The tool loop's own overhead per model turn: a zero-latency fake model that asks for a cheap tool
// call every turn, so all the time measured is validation, dispatch, history and bookkeeping.
// Usage: npm run build && node bench/loop.mjs [turns per message] [messages]
import { z } from 'zod';
import { runTurn } from '../dist/loop/run-turn.js';
import { ToolRegistry } from '../dist/tools/registry.js';

const turns = Number(process.argv[2] ?? 8);
const messages = Number(process.argv[3] ?? 500);
const usage = { input: 1000, cacheRead: 0, cacheWrite: 0, output: 50, reasoning: 0 };
const echo = {
  name: 'echo',
  description: 'Echoes its input.',
  input: z.strictObject({ text: z.string(), n: z.number().int() }),
  run: async ({ text }) => text,
};
const registry = new ToolRegistry([echo]);
let calls = 0;
const provider = {
  name: 'openai-compatible',
  async complete(request) {
    calls++;
    const lastUser = request.messages.findLastIndex((m) => m.role === 'user');
    const toolTurns = request.messages.slice(lastUser).filter((m) => m.role === 'assistant').length;
    const content =
      request.toolChoice === 'none' || toolTurns >= turns - 1
        ? [{ type: 'text', text: 'done' }]
        : [
            { type: 'text', text: 'Working on it.' },
            {
              type: 'toolCall',
              id: `c${calls}a`,
              name: 'echo',
              argumentsText: JSON.stringify({ text: 'x'.repeat(200), n: calls }),
            },
            {
              type: 'toolCall',
              id: `c${calls}b`,
              name: 'echo',
              argumentsText: JSON.stringify({ text: 'y', n: calls }),
            },
          ];
    return {
      role: 'assistant',
      content,
      provider: 'openai-compatible',
      model: 'fake',
      usage,
      stopReason: content.length > 1 ? 'toolUse' : 'stop',
    };
  },
};

// Warm up, then measure with a history that grows like a real session's.
let history = [];
for (let i = 0; i < 20; i++)
  await runTurn(history, 'warm up', { provider, model: 'fake', registry, maxTurns: turns });
calls = 0;
const start = process.hrtime.bigint();
for (let i = 0; i < messages; i++) {
  const r = await runTurn(history, `message ${i}`, { provider, model: 'fake', registry, maxTurns: turns });
  history = i % 25 === 0 ? [] : [...history, ...r.messages];
}
const ms = Number(process.hrtime.bigint() - start) / 1e6;
console.log(`model turns      ${calls}`);
console.log(`overhead         ${((ms * 1000) / calls).toFixed(1)} µs per model turn (target < 5 ms)`);
