import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import {
  checkPlanDocuments,
  parsePlanFile,
  planOf,
  planView,
} from '../../src/research/planning/plan-file.js';

const DOCS = [
  { slug: 'policies/refunds', title: 'Refunds Policy', path: '/c/policies/refunds.md' },
  { slug: 'support/escalation', title: 'Escalation', path: '/c/support/escalation.md' },
];

describe('plan files', () => {
  it('reads what --plan --json prints, and round-trips it', () => {
    const view = planView({ documents: ['policies/refunds'], searches: ['refund law'] }, DOCS);
    expect(view).toEqual({
      documents: [{ slug: 'policies/refunds', title: 'Refunds Policy' }],
      searches: ['refund law'],
    });
    const printed = JSON.stringify({ plan: view, usage: { calls: 1 } });
    expect(parsePlanFile(printed, 'p.json')).toEqual(planOf(view));
  });

  it('takes the plan object alone, plain slugs, {"query"} searches, and drops repeats', () => {
    const text = JSON.stringify({
      documents: ['policies/refunds', { slug: ' support/escalation ' }, 'policies/refunds'],
      searches: [{ query: 'a' }, 'b'],
    });
    expect(parsePlanFile(text, 'p.json')).toEqual({
      documents: ['policies/refunds', 'support/escalation'],
      searches: ['a', 'b'],
    });
  });

  it('says where a file is not a plan', () => {
    const error = (text: string) => {
      try {
        parsePlanFile(text, 'p.json');
      } catch (e) {
        expect(e).toBeInstanceOf(UsageError);
        return (e as Error).message;
      }
      throw new Error('accepted');
    };
    expect(error('[1]')).toMatch(/^The plan file p\.json is not a JSON object\./);
    expect(error('{"searches": "one"}')).toMatch(/has "searches" that is not a list/);
    expect(error('{"documents": [{"title": "x"}]}')).toMatch(/has documents\[0\] that is not a slug/);
  });

  it('refuses unknown documents, naming every one', () => {
    const known = new Set(DOCS.map((d) => d.slug));
    expect(() =>
      checkPlanDocuments({ documents: ['policies/refunds'], searches: [] }, known, '/c'),
    ).not.toThrow();
    expect(() =>
      checkPlanDocuments({ documents: ['x', 'policies/refunds', 'y'], searches: [] }, known, '/c'),
    ).toThrow('The plan names documents not in /c: x, y.');
  });
});
