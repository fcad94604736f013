import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { refreshIndex } from '../../../src/research/documents/index.js';
import { extractiveAnswer } from '../../../src/research/extractive/index.js';
import { quotables } from '../../../src/research/extractive/quotables.js';
import { sourceSentences } from '../../../src/research/text.js';
import { sqliteStoreNow } from '../../support/stores.js';

// The no-key answer quotes the fact whole: the sentence whose numbers and comparison match the question,
// with the list, default or header that completes it.

async function ask(files: Record<string, string>, question: string): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'agent-extractive-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  const store = sqliteStoreNow(':memory:');
  await refreshIndex(store, dir);
  return (await extractiveAnswer(store, dir, question)).answer.split('\n');
}

const REFUNDS = `# Refunds

## Approval limits

Refunds up to $150 can be issued by any support agent. Refunds above $150 and up to $1,000 need a team lead. Anything above $1,000 goes to the finance director, who answers within two business days.
`;

it('prefers the sentence whose number and comparison match: "above $1,000", not "up to $1,000"', async () => {
  const lines = await ask({ 'refunds.md': REFUNDS }, 'Who has to approve a refund above $1,000?');
  expect(lines[0]).toBe(
    '- Anything above $1,000 goes to the finance director, who answers within two business days. [1]',
  );
  const band = await ask({ 'refunds.md': REFUNDS }, 'Who approves a $600 refund?');
  expect(band[0]).toBe('- Refunds above $150 and up to $1,000 need a team lead. [1]');
});

it('quotes an option with the Default: line after it, and a table row with its header', async () => {
  const manual = `# Relay Manual

## Options

| Option | Type | Default |
| --- | --- | --- |
| \`workers\` | integer | \`8\` |
| \`visibility_timeout\` | seconds | \`300\` |

### tries

Number of times a failing job is attempted before it is given up.
Default: \`4\`
`;
  const tries = await ask({ 'relay.md': manual }, 'How many times is a failing job attempted?');
  expect(tries[0]).toBe(
    '- Number of times a failing job is attempted before it is given up. Default: `4` [1]',
  );
  const timeout = await ask({ 'relay.md': manual }, 'What is the default visibility_timeout?');
  expect(timeout[0]).toBe('- Option: `visibility_timeout`; Type: seconds; Default: `300`. [1]');
});

it('keeps a sentence that ends with a colon with the list it announces; a FAQ question is not an answer', async () => {
  const faq = `# Billing FAQ

## Which payment methods do you accept?

We accept the following:

- Visa and Mastercard;
- SEPA direct debit.

PayPal is not accepted.
`;
  const lines = await ask({ 'faq.md': faq }, 'Which payment methods are accepted?');
  expect(lines[0]).toBe('- We accept the following: Visa and Mastercard; SEPA direct debit. [1]');
  expect(lines.some((l) => l.includes('?'))).toBe(false);
});

it('never ends a sentence inside a code span', async () => {
  expect(sourceSentences('Run `make. Then test` first. Then deploy.')).toEqual([
    'Run `make. Then test` first.',
    'Then deploy.',
  ]);
  const found = quotables('Set `retry.max. Value` to 3. Note: zero turns it off.\n');
  expect(found.map((q) => q.text)).toEqual(['Set `retry.max. Value` to 3. Note: zero turns it off.']);
});
