import fc from 'fast-check';
import { expect, it } from 'vitest';
import { runTurn } from '../../src/loop/run-turn.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import type { AssistantPart } from '../../src/types.js';
import { assertWellFormed, reply, scriptedProvider, text, toolCall } from '../support/scripted-provider.js';
import { testTools } from '../support/test-tools.js';

type Kind = 'valid' | 'unknown' | 'badArgs' | 'throws' | 'brokenJson';
const kind = fc.constantFrom<Kind>('valid', 'unknown', 'badArgs', 'throws', 'brokenJson');

// Each invalid call is unique (its arguments carry its position), so the repeat guard never fires here.
function part(k: Kind, t: number, i: number): AssistantPart {
  const id = `t${t}c${i}`;
  switch (k) {
    case 'valid':
      return toolCall(id, 'add', { a: t, b: i });
    case 'unknown':
      return toolCall(id, `nope_${t}_${i}`, {});
    case 'badArgs':
      return toolCall(id, 'add', { a: t, b: i, extra: true });
    case 'throws':
      return toolCall(id, 'fail', {});
    case 'brokenJson':
      return toolCall(id, 'add', `{"a": ${t}, "b": ${i}`);
  }
}

it('any plan of good and bad calls: model-turn count, executions and one result per id', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.array(kind, { maxLength: 4 }), { maxLength: 10 }),
      fc.integer({ min: 1, max: 6 }),
      async (plan, maxTurns) => {
        const turns = [...plan, []]; // the model eventually answers without tools
        const t = testTools();
        const provider = scriptedProvider((req, index) => {
          if (req.toolChoice === 'none') return reply([text('final')]);
          const calls = turns[index]!;
          return reply(calls.length ? calls.map((k, i) => part(k, index, i)) : [text('answer')]);
        });
        const r = await runTurn([], 'go', {
          provider,
          model: 'm',
          registry: new ToolRegistry(t.tools),
          maxTurns,
        });

        const firstEmpty = turns.findIndex((c) => c.length === 0);
        const budgetHit = firstEmpty >= maxTurns;
        const toolTurns = budgetHit ? maxTurns : firstEmpty;
        const executed = turns.slice(0, toolTurns).flat();
        expect(r.modelCalls).toBe(budgetHit ? maxTurns + 1 : firstEmpty + 1);
        expect(r.end).toBe(budgetHit ? 'budget' : 'answered');
        expect(t.runs.length).toBe(executed.filter((k) => k === 'valid' || k === 'throws').length);
        const resultCount = r.messages.filter((m) => m.role === 'toolResult').length;
        expect(resultCount).toBe(executed.length);
        assertWellFormed(r.messages);
      },
    ),
    { numRuns: 300 },
  );
});
