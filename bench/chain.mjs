#!/usr/bin/env node
// The research chain's own overhead: a fake model that takes a fixed time per call and a loopback web
// whose search and pages take fixed times, so the chain's critical path is known exactly; the figure is
// what the chain adds on top of it (indexing, prompts, scheduling, parsing, the ledger).
// Usage: npm run build && node bench/chain.mjs [model-ms] [runs]
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runResearch } from '../dist/research/pipeline.js';
import { openStore } from '../dist/store/open.js';

const MODEL_MS = Number(process.argv[2] ?? 200);
const runs = Number(process.argv[3] ?? 5);
const SEARCH_MS = 50;
const PAGE_MS = 150;

const dir = mkdtempSync(join(tmpdir(), 'agent-bench-chain-'));
mkdirSync(join(dir, 'docs'));
for (let i = 0; i < 40; i++)
  writeFileSync(
    join(dir, 'docs', `doc-${i}.md`),
    `# Policy ${i}\n\n${'The limit for item %d is $%d. '.repeat(40).replace(/%d/g, String(i))}\n`,
  );

const server = createServer((req, res) => {
  const url = new URL(req.url, 'http://x');
  if (url.pathname === '/search') {
    const q = url.searchParams.get('q');
    const results = [1, 2, 3, 4].map((i) => ({
      title: `${q} ${i}`,
      url: `${base}/page/${encodeURIComponent(q)}/${i}`,
      description: 'snippet',
    }));
    setTimeout(
      () =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ web: { results } })),
      SEARCH_MS,
    );
    return;
  }
  setTimeout(
    () =>
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(
          `<html><head><title>${url.pathname}</title></head><body><main><p>${'A fact about limits. '.repeat(200)}</p></main></body></html>`,
        ),
    PAGE_MS,
  );
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${server.address().port}`;
const env = {
  BRAVE_SEARCH_KEY: 'bench',
  BRAVE_SEARCH_URL: `${base}/search`,
  AGENT_ALLOW_HOSTS: new URL(base).host,
};

/** A model that answers after MODEL_MS, by step. */
const provider = {
  name: 'openai-compatible',
  async complete(request) {
    await new Promise((r) => setTimeout(r, MODEL_MS));
    const prompt = request.messages.at(-1).content;
    let text = '- The limit is $5.';
    if (request.system.includes('You plan research')) {
      text = prompt.includes('Facts gathered so far')
        ? '{"gaps": ["more"], "documents": ["docs/doc-3", "docs/doc-4"], "searches": ["second"]}'
        : '{"documents": ["docs/doc-1", "docs/doc-2", "docs/doc-0"], "searches": ["alpha", "beta", "gamma"]}';
    } else if (!request.system.includes('You extract facts')) text = 'The limit is $5 [1].';
    request.onEvent?.({ type: 'text', delta: text });
    return {
      role: 'assistant',
      content: [{ type: 'text', text }],
      provider: 'openai-compatible',
      model: request.model,
      usage: { input: 100, cacheRead: 0, cacheWrite: 0, output: 10, reasoning: 0 },
      stopReason: 'stop',
    };
  },
};

async function time(depth) {
  const db = openStore(join(mkdtempSync(join(tmpdir(), 'agent-bench-db-')), 'agent.db'));
  const start = performance.now();
  const result = await runResearch({
    question: 'What is the limit?',
    db,
    contentDir: dir,
    env,
    models: { provider, smallModel: 's', largeModel: 'l' },
    depth,
  });
  const ms = performance.now() - start;
  db.close();
  return { ms, sources: result.sources.length, calls: result.usage.calls };
}

// Per round: the slowest source is a web page (search, then page, then its extraction).
const round = SEARCH_MS + PAGE_MS + MODEL_MS;
const cases = [
  ['depth 1', 1, MODEL_MS + round + MODEL_MS],
  ['depth 2', 2, MODEL_MS + round + MODEL_MS + round + MODEL_MS],
];
console.log(
  `model ${MODEL_MS} ms a call, search ${SEARCH_MS} ms, page ${PAGE_MS} ms; median of ${runs} runs`,
);
for (const [name, depth, critical] of cases) {
  await time(depth); // warm: the first run indexes the folder
  const all = [];
  for (let i = 0; i < runs; i++) all.push(await time(depth));
  all.sort((a, b) => a.ms - b.ms);
  const m = all[Math.floor(all.length / 2)];
  console.log(
    `${name}: ${m.sources} sources, ${m.calls} calls · ${m.ms.toFixed(0)} ms · critical path ${critical} ms · overhead ${(m.ms - critical).toFixed(0)} ms`,
  );
}
server.close();
