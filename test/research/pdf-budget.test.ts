import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sourceLine } from '../../src/cli/research-render.js';
import { styleFor } from '../../src/cli/style.js';
import { runResearch } from '../../src/research/pipeline.js';
import { runCli } from '../support/cli.js';
import { makePdf } from '../support/make-pdf.js';
import { contentFolder, fakeWeb, researchModel } from '../support/research-world.js';
import { sqliteStoreNow } from '../support/stores.js';

// A long PDF found by a search is read for its time budget, and the run says how much of it was read.

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

describe('research reads a long PDF by URL within its time budget', () => {
  it('says in the source report and in the source text how many pages were read', async () => {
    const pages = Array.from({ length: 300 }, (_, i) => [`Part ${i + 1}`, 'The desk allowance is $480.']);
    const w = await fakeWeb(
      { 'desk allowance': ['/manual.pdf'] },
      { '/manual.pdf': { body: makePdf({ pages }), type: 'application/pdf' } },
    );
    closers.push(w.server.close);
    const model = researchModel({
      plan: () => JSON.stringify({ documents: [], searches: ['desk allowance'] }),
    });
    const result = await runResearch({
      question: 'What is the desk allowance?',
      store: sqliteStoreNow(':memory:'),
      contentDir: contentFolder({}),
      env: { ...w.env, AGENT_PDF_BUDGET_MS: '1' },
      models: { provider: model, smallModel: 'small', largeModel: 'large' },
    });
    const report = result.reports.find((r) => r.label.endsWith('/manual.pdf'))!;
    const read = /^read (\d+) of 300 pages: the 1 ms time budget was spent$/.exec(report.partial ?? '');
    expect(read).not.toBeNull();
    expect(Number(read![1])).toBeLessThan(300);
    const source = result.sources.find((s) => s.location.endsWith('/manual.pdf'))!;
    expect(source.text).toMatch(/^\[Read \d+ of 300 pages: the 1 ms time budget was spent\.\]\n\n\[Page 1\]/);
    expect(report.status).toBe('read');
    expect(sourceLine(report, styleFor({ isTTY: false } as NodeJS.WriteStream))).toMatch(
      /manual\.pdf \(read \d+ of 300 pages: the 1 ms time budget was spent\)$/,
    );
  });

  it('refuses a budget that is not milliseconds before anything runs (exit 2)', async () => {
    const r = await runCli(['research', 'What is the refund limit?'], {
      env: { AGENT_PDF_BUDGET_MS: '15s', AGENT_DB: join(mkdtempSync(join(tmpdir(), 'agent-')), 'a.db') },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'agent: AGENT_PDF_BUDGET_MS=15s is not a time budget: expected milliseconds, a whole number above 0, like 15000.\n',
    );
    expect(r.stdout).toBe('');
  });
});
