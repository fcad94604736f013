import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { findEvidence } from '../../../src/research/checks/evidence/index.js';
import { checkGrounding } from '../../../src/research/checks/grounding/index.js';
import { readAhead, readAheadNow } from '../../../src/research/checks/read-ahead.js';

// Reading the sources while the answer streams must change nothing a reader sees: the same unsupported
// claims and the same evidence as checks that read the sources themselves.

interface Family {
  family: string;
  source: string;
  right: string[];
  wrong: string[];
}
const families = JSON.parse(
  readFileSync(new URL('../../fixtures/grounding/cases.json', import.meta.url), 'utf8'),
) as Family[];

// One answer over every family's source: each family's sentences cite that family's source.
const sources = families.map((f, i) => ({
  n: i + 1,
  kind: 'web' as const,
  title: f.family,
  location: `https://example.com/${i + 1}`,
  text: f.source,
}));
const answer = families
  .flatMap((f, i) => [...f.right, ...f.wrong].map((s) => s.replaceAll('[1]', `[${i + 1}]`)))
  .join('\n');

describe('reading the sources ahead', () => {
  it('gives the grounding check and the evidence exactly the results they find alone', () => {
    const ahead = readAheadNow(sources);
    const grounding = checkGrounding(answer, sources, ahead.grounding);
    expect(grounding.unsupported.length).toBeGreaterThan(50);
    expect(grounding).toEqual(checkGrounding(answer, sources));
    const evidence = findEvidence(answer, sources, ahead.evidence);
    expect(evidence.filter((e) => e.quote).length).toBeGreaterThan(100);
    expect(evidence).toEqual(findEvidence(answer, sources));
  });

  it('reads one source per turn of the event loop, and stops when told', async () => {
    const ahead = readAhead(sources);
    expect(ahead.grounding.size).toBe(0);
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    const partway = ahead.grounding.size;
    expect(partway).toBeGreaterThan(0);
    expect(partway).toBeLessThan(sources.length);
    ahead.stop();
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    expect(ahead.grounding.size).toBe(partway);
    // What was read is used; the checks read the rest themselves, with the same results.
    expect(checkGrounding(answer, sources, ahead.grounding)).toEqual(checkGrounding(answer, sources));
  });
});
