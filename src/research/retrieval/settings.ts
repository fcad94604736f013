import { UsageError } from '../../errors.js';
import {
  createEmbedder,
  type Embedder,
  type EmbeddingsSpec,
  parseEmbeddingsSpec,
} from '../../providers/embeddings.js';

// `--retrieval` and `--embeddings` (AGENT_RETRIEVAL, AGENT_EMBEDDINGS): how local documents are searched.
// Without embeddings nothing changes: keyword search (BM25), as before.

/** A passage given to the model, as `--json`'s `retrieval.passages` lists it. */
export interface PassageRank {
  document: string;
  bm25Rank: number | null;
  vectorRank: number | null;
  score: number;
}

export interface RetrievalReport {
  mode: RetrievalMode;
  /** `provider:model`, or null without embeddings. */
  embeddings: string | null;
  passages: PassageRank[];
  /** Why hybrid or semantic retrieval fell back to BM25, when it did. */
  fallback?: string;
}

export const RETRIEVAL_MODES = ['bm25', 'hybrid', 'semantic'] as const;
export type RetrievalMode = (typeof RETRIEVAL_MODES)[number];

export interface RetrievalSetup {
  mode: RetrievalMode;
  /** Set for hybrid and semantic retrieval. */
  embedder?: Embedder;
  /** Asked for (a flag or a variable): `--json` then says how passages were found, in bm25 mode too. */
  asked?: boolean;
}

/** The mode and embeddings model asked for, checked (exit 2 on a mistake) before anything is spent. */
export function retrievalSpec(
  flags: { retrieval?: string; embeddings?: string },
  env: NodeJS.ProcessEnv,
): { mode: RetrievalMode; embeddings?: EmbeddingsSpec } {
  const embeddingsText = flags.embeddings ?? (env.AGENT_EMBEDDINGS || undefined);
  const embeddings = embeddingsText === undefined ? undefined : parseEmbeddingsSpec(embeddingsText);
  const modeText = flags.retrieval ?? (env.AGENT_RETRIEVAL || undefined);
  if (modeText !== undefined && !RETRIEVAL_MODES.includes(modeText as RetrievalMode))
    throw new UsageError(
      `Unknown retrieval "${modeText}" (${flags.retrieval !== undefined ? '--retrieval' : 'AGENT_RETRIEVAL'}): choose bm25, hybrid or semantic.`,
    );
  const mode = (modeText as RetrievalMode | undefined) ?? (embeddings ? 'hybrid' : 'bm25');
  if (mode !== 'bm25' && !embeddings)
    throw new UsageError(
      `--retrieval ${mode} needs an embeddings model: give --embeddings (or AGENT_EMBEDDINGS), for example openai:text-embedding-3-small or ollama:nomic-embed-text.`,
    );
  return { mode, ...(mode !== 'bm25' && embeddings ? { embeddings } : {}) };
}

export async function retrievalSetup(
  flags: { retrieval?: string; embeddings?: string },
  env: NodeJS.ProcessEnv = process.env,
): Promise<RetrievalSetup> {
  const { mode, embeddings } = retrievalSpec(flags, env);
  const asked = [flags.retrieval, flags.embeddings, env.AGENT_RETRIEVAL, env.AGENT_EMBEDDINGS].some(Boolean);
  const setup: RetrievalSetup = embeddings
    ? { mode, embedder: await createEmbedder(embeddings, env) }
    : { mode };
  return asked ? { ...setup, asked } : setup;
}
