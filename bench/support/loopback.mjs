// What the benchmarks that spawn the built CLI share: the environment it runs in (no developer keys,
// a loopback model, a private database and config) and a streamed OpenAI Chat Completions reply.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The environment for the CLI: this one without keys or agent settings, pointed at `base` and `home`. */
export function agentEnv(base, home, extra = {}) {
  return {
    ...Object.fromEntries(
      Object.entries(process.env).filter(
        ([k]) => !/^(ANTHROPIC_|OPENAI_|AGENT_|BRAVE_|TAVILY_|SEARXNG_)/.test(k),
      ),
    ),
    OPENAI_BASE_URL: `${base}/v1`,
    OPENAI_API_KEY: 'bench',
    AGENT_DB: join(home, 'agent.db'),
    XDG_CONFIG_HOME: join(home, 'config'),
    XDG_DATA_HOME: join(home, 'data'),
    ...extra,
  };
}

/** A whole streamed Chat Completions reply of `text`, with a usage chunk (100 input, 10 output tokens). */
export function chatSse(text) {
  const chunk = (delta, finish = null) =>
    `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  return (
    chunk({ role: 'assistant', content: text }) +
    chunk({}, 'stop') +
    `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 } })}\n\n` +
    'data: [DONE]\n\n'
  );
}

/** A content folder `<home>/docs` of 30 short policies, doc-0 to doc-29 ("The limit for item 7 is $7."). */
export function policyDocs(home) {
  const docs = join(home, 'docs');
  mkdirSync(docs);
  for (let i = 0; i < 30; i++)
    writeFileSync(
      join(docs, `doc-${i}.md`),
      `# Policy ${i}\n\n${'The limit for item %d is $%d. '.repeat(40).replace(/%d/g, String(i))}\n`,
    );
  return docs;
}

/** `agent research` with the loopback provider, its two models and the content folder `docs`. */
export const researchFlags = (docs) => [
  'research',
  '--provider',
  'openai-compatible',
  '--small-model',
  's',
  '--large-model',
  'l',
  '--content',
  docs,
];
