// esbuild plugins for scripts/bundle.mjs: what the bundle leaves out or loads later.
import { dirname, resolve } from 'node:path';

/**
 * commander requires node:child_process at load, only to run executable subcommands, which agent has
 * none of; loading it costs every command a few milliseconds. It is required on first use instead.
 */
export const lazyChildProcess = {
  name: 'lazy-child-process',
  setup(b) {
    b.onResolve({ filter: /^node:child_process$/ }, (args) =>
      /[\\/]commander[\\/]/.test(args.importer) ? { path: 'child_process', namespace: 'lazy' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'lazy' }, () => ({
      contents: "module.exports = { spawn: (...args) => require('node:child_process').spawn(...args) };",
      loader: 'js',
    }));
  },
};

/**
 * zod's entry re-exports every locale (`z.locales`, half of zod's code: about 300 KB for V8 to compile at
 * the start of chat). agent never switches locale, and zod sets English itself (classic/schemas.js imports
 * locales/en.js directly), so the index of locales becomes English only.
 */
export const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(b) {
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]v4[\\/]/.test(args.importer)
        ? { path: resolve(args.resolveDir, args.path), namespace: 'zod-locales' }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (args) => ({
      contents: "export { default as en } from './en.js';",
      resolveDir: dirname(args.path),
      loader: 'js',
    }));
  },
};

/**
 * The OpenAI client makes every resource of the API when it is constructed (audio, batches, vector stores,
 * …: a third of the SDK's code, compiled or deserialized at each start of chat and research); agent calls
 * three, chat completions, responses and embeddings. The others become empty classes where the client imports them
 * (client.mjs and resources/index.mjs only: any other import of them is the real module). The build fails
 * if the SDK no longer imports one of them so, rather than silently keeping or breaking them.
 */
const OPENAI_UNUSED = {
  'audio/audio': 'Audio',
  batches: 'Batches',
  'beta/beta': 'Beta',
  completions: 'Completions',
  'containers/containers': 'Containers',
  'conversations/conversations': 'Conversations',
  'evals/evals': 'Evals',
  files: 'Files',
  'fine-tuning/fine-tuning': 'FineTuning',
  'graders/graders': 'Graders',
  images: 'Images',
  models: 'Models',
  moderations: 'Moderations',
  'realtime/realtime': 'Realtime',
  'skills/skills': 'Skills',
  'uploads/uploads': 'Uploads',
  'vector-stores/vector-stores': 'VectorStores',
  videos: 'Videos',
  webhooks: 'Webhooks',
  'webhooks/webhooks': 'Webhooks',
};
const openaiStubbed = new Set();
export const openaiUsedOnly = {
  name: 'openai-used-only',
  setup(b) {
    b.onResolve({ filter: /^\.\.?\// }, (args) => {
      if (!/[\\/]openai[\\/](client|resources[\\/]index)\.mjs$/.test(args.importer)) return undefined;
      const resource = args.path.replace(/^\.\/(resources\/)?/, '').replace(/\.mjs$/, '');
      if (!OPENAI_UNUSED[resource]) return undefined;
      openaiStubbed.add(resource);
      return { path: resource, namespace: 'openai-unused' };
    });
    b.onLoad({ filter: /.*/, namespace: 'openai-unused' }, (args) => ({
      contents: `export class ${OPENAI_UNUSED[args.path]} { constructor(client) { this._client = client; } }`,
      loader: 'js',
    }));
  },
};

/** Fails the build if the SDK did not import, from its client, each resource made empty. */
export function checkOpenaiStubs() {
  const missing = Object.keys(OPENAI_UNUSED).filter((resource) => !openaiStubbed.has(resource));
  if (missing.length)
    throw new Error(
      `the OpenAI SDK no longer imports these resources from its client: ${missing.join(', ')}`,
    );
}
