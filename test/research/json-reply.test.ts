import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readJsonReply } from '../../src/research/json-reply.js';
import { factsText, readFacts } from '../../src/research/planning/facts.js';
import { parsePlan } from '../../src/research/planning/plan.js';

/** JSON with a trailing comma after the last item of every non-empty array and object. */
const withCommas = (v: unknown): string => {
  if (Array.isArray(v)) return `[${v.map(withCommas).join(', ')}${v.length ? ',' : ''}]`;
  if (v && typeof v === 'object') {
    const entries = Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}: ${withCommas(x)}`);
    return `{${entries.join(', ')}${entries.length ? ',' : ''}}`;
  }
  return JSON.stringify(v);
};

describe('readJsonReply: JSON as small models write it', () => {
  it('reads JSON in a fence, after prose, with trailing commas, single quotes, unquoted keys', () => {
    expect(readJsonReply('```json\n{"a": [1, 2]}\n```')).toEqual({ a: [1, 2] });
    expect(
      readJsonReply('Sure! Here is the plan:\n{"documents": ["x"], "searches": []}\nHope it helps.'),
    ).toEqual({
      documents: ['x'],
      searches: [],
    });
    expect(readJsonReply('{"documents": ["x", "y",], "searches": [],}')).toEqual({
      documents: ['x', 'y'],
      searches: [],
    });
    expect(readJsonReply("{'facts': ['It's $200', 'a \"quoted\" word']}")).toEqual({
      facts: ["It's $200", 'a "quoted" word'],
    });
    expect(readJsonReply('{documents: ["x"], searches: []}')).toEqual({ documents: ['x'], searches: [] });
    expect(readJsonReply('{"ok": True, "none": None}')).toEqual({ ok: true, none: null });
  });

  it('closes a reply cut off at the output limit, and says undefined when there is nothing to read', () => {
    expect(readJsonReply('{"facts": ["one", "two", "thr')).toEqual({ facts: ['one', 'two', 'thr'] });
    expect(readJsonReply('{"facts": ["one"], "more":')).toEqual({ facts: ['one'] });
    expect(readJsonReply('no JSON here')).toBeUndefined();
    expect(readJsonReply('')).toBeUndefined();
  });

  it('passes over a bracket in the prose that the caller does not take', () => {
    const reply = 'From source [1], the plan is {"documents": ["a"], "searches": []}';
    expect(readJsonReply(reply, (v) => !Array.isArray(v))).toEqual({ documents: ['a'], searches: [] });
    expect(parsePlan(reply, new Set(['a'])).plan.documents).toEqual(['a']);
  });

  it('property: any JSON object survives fences, prose, indentation and trailing commas', () => {
    const objects = fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 5 });
    fc.assert(
      fc.property(objects, fc.constantFrom('', 'Here it is:\n', 'Sure.\n```json\n'), (value, before) => {
        const normal = JSON.parse(JSON.stringify(value));
        const text = JSON.stringify(value, null, 2);
        expect(readJsonReply(`${before}${text}${before.includes('```') ? '\n```' : ''}`)).toEqual(normal);
        expect(readJsonReply(withCommas(value))).toEqual(normal);
      }),
    );
  });

  it('property: a reply cut anywhere never throws, and a cut list of strings keeps its whole items', () => {
    const lists = fc.array(fc.string({ minLength: 1, maxLength: 20 }), { minLength: 1, maxLength: 6 });
    fc.assert(
      fc.property(lists, fc.nat(), (facts, at) => {
        const text = JSON.stringify({ facts });
        const cut = text.slice(0, at % (text.length + 1));
        const value = readJsonReply(cut) as { facts?: string[] } | undefined;
        if (value?.facts) {
          const whole = value.facts.slice(0, -1);
          expect(facts.slice(0, whole.length)).toEqual(whole);
        }
      }),
    );
  });
});

describe('readFacts', () => {
  it('reads the JSON facts, the old lines of facts, and the marker for none', () => {
    expect(readFacts('{"facts": ["Refunds up to $200 [1]", "Managers approve more"]}')).toEqual([
      'Refunds up to $200 [1]',
      'Managers approve more',
    ]);
    expect(readFacts('```json\n{"facts": []}\n```')).toEqual([]);
    expect(readFacts('- one\n- two')).toEqual(['one', 'two']);
    expect(readFacts('NO RELEVANT FACTS')).toEqual([]);
    expect(readFacts('[{"fact": "a"}, "b"]')).toEqual(['a', 'b']);
  });

  it('says undefined for an empty reply and for JSON that cannot be read', () => {
    expect(readFacts('')).toBeUndefined();
    expect(readFacts('{"fac')).toBeUndefined();
    expect(readFacts('```json\n{{{{\n```')).toBeUndefined();
  });

  it('writes facts as lines, each once', () => {
    expect(factsText(['a', ' a ', 'b'])).toBe('- a\n- b');
    expect(factsText([])).toBe('NO RELEVANT FACTS');
  });
});
