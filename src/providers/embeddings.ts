import { AbortedError, ConfigError, ProviderError } from '../errors.js';
import { backOff, retryableStatus } from './back-off.js';
import { type Embedding, fitting } from './embedding-fit.js';
import { translateError } from './errors.js';
import { ollamaBaseUrl } from './ollama-host.js';
import { requestSignal } from './request-signal.js';

// Embedding models, `--embeddings <provider>:<model>` (or AGENT_EMBEDDINGS): OpenAI and any server of
// its `/v1/embeddings` wire format through the openai SDK (its retries and 429 back-off, as for model
// calls), and Ollama through its own `/api/embed`. A text becomes a vector of floats; what the vectors are
// for (the document index) is research/retrieval/'s business.

export const EMBEDDING_PROVIDERS = ['openai', 'ollama', 'openai-compatible'] as const;
export type EmbeddingProviderName = (typeof EMBEDDING_PROVIDERS)[number];

export interface EmbeddingsSpec {
  provider: EmbeddingProviderName;
  model: string;
}

export type { Embedding };

export interface Embedder {
  readonly provider: EmbeddingProviderName;
  readonly model: string;
  /** `provider:model`, as the user names it. */
  readonly label: string;
  embed(texts: string[], signal?: AbortSignal): Promise<Embedding>;
}

const DEFAULT_MODEL: Partial<Record<EmbeddingProviderName, string>> = {
  openai: 'text-embedding-3-small',
  ollama: 'nomic-embed-text',
};

/**
 * The text-embedding-3 models are trained so that a vector's first dimensions are a good vector on their
 * own: 512 of them keep nearly all of the quality at a third of the storage. Other models are taken
 * whole, since cutting them is not allowed.
 */
export const SHORTENED_DIMENSIONS = 512;
const shortens = (model: string) => /^text-embedding-3-(small|large)\b/.test(model);

const SPEC_HINT = `Give --embeddings (or AGENT_EMBEDDINGS) as <provider>:<model>, with provider ${EMBEDDING_PROVIDERS.join(', ')}; for example openai:text-embedding-3-small or ollama:nomic-embed-text.`;

/** `openai`, `openai:text-embedding-3-large`, `ollama:nomic-embed-text`, `openai-compatible:bge-m3`. */
export function parseEmbeddingsSpec(text: string): EmbeddingsSpec {
  const trimmed = text.trim();
  const colon = trimmed.indexOf(':');
  const provider = (colon < 0 ? trimmed : trimmed.slice(0, colon)) as EmbeddingProviderName;
  const model = colon < 0 ? '' : trimmed.slice(colon + 1).trim();
  if (!EMBEDDING_PROVIDERS.includes(provider))
    throw new ConfigError(`Unknown embeddings provider in "${text}". ${SPEC_HINT}`);
  const chosen = model || DEFAULT_MODEL[provider];
  if (!chosen) throw new ConfigError(`Name the model of "${provider}" embeddings. ${SPEC_HINT}`);
  return { provider, model: chosen };
}

/** Ceiling of one embedding request; a slow server falls back to keyword search rather than hanging. */
const TIMEOUT_MS = 30_000;

function timeoutMs(env: NodeJS.ProcessEnv): number {
  const n = Number(env.AGENT_EMBEDDINGS_TIMEOUT_MS);
  return Number.isFinite(n) && n > 0 ? n : TIMEOUT_MS;
}

export async function createEmbedder(
  spec: EmbeddingsSpec,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Embedder> {
  const label = `${spec.provider}:${spec.model}`;
  const override = env.AGENT_EMBEDDINGS_BASE_URL?.trim() || undefined;
  if (spec.provider === 'ollama') {
    const base = ollamaBaseUrl(override ?? env.OLLAMA_HOST);
    const variable = override ? 'AGENT_EMBEDDINGS_BASE_URL' : 'OLLAMA_HOST';
    return {
      ...spec,
      label,
      embed: fitting((texts, signal) => ollamaEmbed(base, spec.model, texts, env, signal, variable)),
    };
  }
  const baseURL = override ?? (env.OPENAI_BASE_URL || undefined);
  if (spec.provider === 'openai' && !env.OPENAI_API_KEY)
    throw new ConfigError('openai embeddings need OPENAI_API_KEY to be set.');
  if (spec.provider === 'openai-compatible' && !baseURL)
    throw new ConfigError(
      'openai-compatible embeddings need AGENT_EMBEDDINGS_BASE_URL or OPENAI_BASE_URL (for example http://localhost:8080/v1).',
    );
  const { default: OpenAI } = await import('openai');
  const client = new OpenAI({
    maxRetries: 3,
    timeout: timeoutMs(env),
    ...(baseURL ? { baseURL } : {}),
    // Local servers need no key, but the SDK insists on one.
    apiKey: env.OPENAI_API_KEY || 'not-needed',
  });
  const vendor = spec.provider === 'openai' ? 'OpenAI' : 'the embeddings server';
  const base64 = spec.provider === 'openai';
  return {
    ...spec,
    label,
    embed: fitting(async (texts, signal) => {
      const own = requestSignal(signal);
      try {
        const reply = await client.embeddings.create(
          {
            model: spec.model,
            input: texts,
            // OpenAI's base64 float32s are a quarter of the JSON numbers' size and decoded without
            // parsing (the larger share of an index's CPU otherwise); other servers are sent what every
            // one of them speaks, floats.
            encoding_format: base64 ? 'base64' : 'float',
            ...(shortens(spec.model) ? { dimensions: SHORTENED_DIMENSIONS } : {}),
          },
          { signal: own.signal },
        );
        if (spec.provider === 'openai' && reply.model && !sameModel(reply.model, spec.model))
          throw new ProviderError(`OpenAI answered with ${reply.model}'s vectors, not ${spec.model}'s.`);
        // A proxy in OpenAI's place may answer floats all the same: either is taken.
        const vectors = [...reply.data]
          .sort((a, b) => a.index - b.index)
          .map((d): ArrayLike<number> => {
            const e = d.embedding as unknown;
            return typeof e === 'string' ? float32s(e) : (e as number[]);
          });
        return checked(vectors, texts, reply.usage?.prompt_tokens);
      } catch (error) {
        // Named when it set the address: that is the setting to check, not OPENAI_BASE_URL.
        throw translateError(
          error,
          vendor,
          spec.model,
          signal,
          undefined,
          override && 'AGENT_EMBEDDINGS_BASE_URL',
        );
      } finally {
        own.release();
      }
    }),
  };
}

/** `text-embedding-3-small` and its dated snapshots are one model. */
const sameModel = (answered: string, asked: string) =>
  answered === asked || answered.startsWith(`${asked}-`) || asked.startsWith(`${answered}-`);

/** A base64 vector as OpenAI sends it: little-endian float32s. */
function float32s(text: string): Float32Array {
  const bytes = Buffer.from(text, 'base64');
  if (bytes.length === 0 || bytes.length % 4 !== 0)
    throw new ProviderError('The embeddings server gave a base64 vector that is not float32 numbers.');
  const out = new Float32Array(bytes.length / 4);
  // Copied: a decoded Buffer need not start on a 4-byte boundary.
  new Uint8Array(out.buffer).set(bytes);
  return out;
}

/**
 * Every component a finite number. A Float32Array holds numbers only, and a float32 is NaN or an
 * infinity exactly when its exponent bits are all ones: then adding the exponent's lowest bit carries
 * into bit 31. OR-ed together without a branch a component (or a floating-point add a component, whose
 * latency chained them). JSON may give anything: each is checked.
 */
const allFinite = (v: ArrayLike<number>): boolean => {
  if (v instanceof Float32Array) {
    const bits = new Uint32Array(v.buffer, v.byteOffset, v.length);
    let carried = 0;
    for (let i = 0; i < bits.length; i++) carried |= (bits[i]! & 0x7f800000) + 0x00800000;
    return (carried & 0x80000000) === 0;
  }
  for (let i = 0; i < v.length; i++) if (!Number.isFinite(v[i])) return false;
  return true;
};

/** One vector per text, all of one length, every number finite: anything else is a broken reply. */
function checked(vectors: ArrayLike<number>[], texts: string[], tokens: number | undefined): Embedding {
  if (vectors.length !== texts.length)
    throw new ProviderError(
      `The embeddings server gave ${vectors.length} vectors for ${texts.length} texts.`,
    );
  const dims = vectors[0]?.length ?? 0;
  const isVector = (v: unknown) => Array.isArray(v) || v instanceof Float32Array;
  if (vectors.some((v) => !isVector(v) || v.length !== dims || dims === 0))
    throw new ProviderError('The embeddings server gave vectors of different lengths in one reply.');
  if (!vectors.every(allFinite))
    throw new ProviderError('The embeddings server gave a vector that is not numbers.');
  const chars = texts.reduce((n, t) => n + t.length, 0);
  return { vectors, inputTokens: tokens ?? Math.ceil(chars / 4) };
}

const RETRIES = 3;

/**
 * Ollama's documented `/api/embed`: {model, input: [...]} → {embeddings: [[...]], prompt_eval_count}.
 * Retried as the SDK retries: connection failures, 408, 409, 429 and 5xx, with back-off (Retry-After
 * when the server gives one).
 */
async function ollamaEmbed(
  base: string,
  model: string,
  texts: string[],
  env: NodeJS.ProcessEnv,
  signal: AbortSignal | undefined,
  /** The variable that set `base`, named when it cannot be reached. */
  variable: string,
): Promise<Embedding> {
  for (let attempt = 0; ; attempt++) {
    if (signal?.aborted) throw new AbortedError();
    const own = requestSignal(signal, timeoutMs(env));
    try {
      let response: Response;
      try {
        response = await fetch(`${base}/api/embed`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ model, input: texts }),
          signal: own.signal,
        });
      } catch (error) {
        if (signal?.aborted) throw new AbortedError();
        if (attempt < RETRIES) {
          await backOff(attempt, null, signal);
          continue;
        }
        throw new ProviderError(
          own.timedOut
            ? `Ollama did not answer in time (after retries) at ${base}.`
            : `Could not reach Ollama at ${base}: ${(error as Error).message}. Check ${variable}.`,
        );
      }
      const retryable = retryableStatus(response.status);
      if (retryable && attempt < RETRIES) {
        await response.body?.cancel();
        await backOff(attempt, response.headers.get('retry-after'), signal);
        continue;
      }
      const body = (await response.json().catch(() => ({}))) as {
        embeddings?: number[][];
        prompt_eval_count?: number;
        error?: string;
      };
      if (!response.ok)
        throw new ProviderError(
          response.status === 404
            ? `Ollama has no model "${model}" (404): ${body.error ?? ''} Pull it with: ollama pull ${model}`
            : `Ollama returned ${response.status}: ${body.error ?? response.statusText}`,
          response.status,
        );
      if (!Array.isArray(body.embeddings)) throw new ProviderError('Ollama answered without embeddings.');
      return checked(body.embeddings, texts, body.prompt_eval_count);
    } finally {
      own.release();
    }
  }
}
