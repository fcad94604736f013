// The loopback world research benchmarks run the built CLI against: an OpenAI Chat Completions model
// (streamed), a Brave-style search service and web pages, each with a fixed latency, and a content folder
// of 30 short documents and one long one. Every request is counted; `mark` hears each event as it happens.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { agentEnv, chatSse, policyDocs, researchFlags } from './loopback.mjs';

export const bin = fileURLToPath(new URL('../../bin/agent.js', import.meta.url));

/** Latencies (ms): plan, extraction, the long document's extraction, the slow page (beta-1), write. */
export const MS = { plan: 400, extract: 400, longExtract: 1200, slowPage: 1200, write: 400 };

/** The model's reply by step (recognised from the system prompt), with its step and latency. */
function modelReply(body, ms) {
  const system = body.messages.find((m) => m.role === 'system')?.content ?? '';
  const prompt = String(body.messages.at(-1).content);
  if (system.includes('You plan research'))
    return {
      step: 'plan',
      label: 'plan',
      ms: ms.plan,
      text: '{"documents": ["doc-1", "doc-2", "long"], "searches": ["alpha", "beta", "gamma"]}',
    };
  if (system.includes('You extract facts')) {
    const label = prompt.match(/\[(SRC [^\]]+)\]/)?.[1] ?? (prompt.includes('Long manual') ? 'long' : 'doc');
    return {
      step: 'extract',
      label: `extract ${label}`,
      ms: label === 'long' ? ms.longExtract : ms.extract,
      text: '- The limit is $5.',
    };
  }
  return { step: 'write', label: 'write', ms: ms.write, text: 'The limit is $5 [1].' };
}

/**
 * Starts the world. `mark(what)` is told of every request and reply; `onPlan()` when the plan request
 * arrives. `counts` holds model calls by step and the pages served.
 */
export async function startWorld({ ms = MS, mark = () => {}, onPlan = () => {} } = {}) {
  const home = mkdtempSync(join(tmpdir(), 'agent-bench-'));
  const docs = policyDocs(home);
  writeFileSync(join(docs, 'long.md'), `# Long manual\n\n${'The long limit is $9. '.repeat(400)}\n`);

  const counts = { plan: 0, extract: 0, write: 0, pages: 0 };
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (d) => {
      raw += d;
    });
    req.on('end', () => {
      const url = new URL(req.url, 'http://x');
      if (url.pathname.endsWith('/chat/completions')) {
        const reply = modelReply(JSON.parse(raw), ms);
        if (reply.step === 'plan') onPlan();
        counts[reply.step]++;
        mark(`${reply.label} start`);
        setTimeout(() => {
          mark(`${reply.label} end`);
          res.writeHead(200, { 'content-type': 'text/event-stream' }).end(chatSse(reply.text));
        }, reply.ms);
        return;
      }
      if (url.pathname === '/search') {
        const q = url.searchParams.get('q');
        mark(`search ${q}`);
        const results = [1, 2].map((i) => ({
          title: `${q} ${i}`,
          url: `${base}/page/${q}-${i}`,
          description: 'snippet',
        }));
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ web: { results } }));
        return;
      }
      const name = url.pathname.split('/').pop();
      counts.pages++;
      mark(`page ${name} requested`);
      setTimeout(
        () => {
          mark(`page ${name} served`);
          res
            .writeHead(200, { 'content-type': 'text/html' })
            .end(
              `<html><head><title>[SRC ${name}] page</title></head><body><main><h1>[SRC ${name}] page</h1><p>${'A fact about limits. '.repeat(100)}</p></main></body></html>`,
            );
        },
        name === 'beta-1' ? ms.slowPage : 0,
      );
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${server.address().port}`;

  const env = agentEnv(base, home, {
    BRAVE_SEARCH_KEY: 'bench',
    BRAVE_SEARCH_URL: `${base}/search`,
    AGENT_ALLOW_HOSTS: new URL(base).host,
    NO_COLOR: '1',
  });
  /** `agent research` with the world's provider, models and content folder. */
  const researchArgs = (question, flags = []) => [bin, ...researchFlags(docs), ...flags, question];
  return { home, docs, base, env, counts, researchArgs, close: () => server.close() };
}
