// One of several processes writing to one PostgreSQL database at once (test/store/postgres/concurrency):
// research runs with their progress, notes and ledger rows, through the built store.
import { openPostgres } from '../../dist/store/postgres/open.js';

const [url, name, count] = process.argv.slice(2);
const store = await openPostgres(url, { env: { ...process.env, AGENT_USER: name } });
const usage = { input: 100, cacheRead: 0, cacheWrite: 0, output: 10, reasoning: 0 };
try {
  for (let i = 0; i < Number(count); i++) {
    const ledgerId = `${name}-run-${i}`;
    const holder = `test:${process.pid}:${i}`;
    const id = await store.progress.start({
      question: `Question ${i} of ${name}?`,
      createdAt: Date.now(),
      ledgerId,
      options: { i },
      holder,
      plan: { searches: [] },
    });
    await store.progress.recordSource(id, 'doc:a', { title: 'A' }, `Shared text ${i % 2}`);
    await store.progress.recordFacts(id, 'doc:a', `facts ${i}`);
    for (const step of ['plan', 'extract', 'write'])
      await store.ledger.record({
        command: 'research',
        runId: ledgerId,
        step,
        provider: 'openai',
        model: 'gpt-4o-mini',
        usage,
      });
    await store.runs.save({
      id,
      question: `Question ${i} of ${name}?`,
      mode: 'model',
      answer: `Answer ${i}`,
      costUsd: 0,
      result: { i },
      texts: [{ n: 1, text: `Shared text ${i % 2}` }],
    });
    await store.notes.add({ content: `Note ${i} of ${name}` });
  }
  process.stdout.write('done\n');
} finally {
  await store.close();
}
