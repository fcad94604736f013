import { ConfigError } from '../errors.js';
import type { Provider, ProviderName } from '../types.js';

// Which provider and models to use, from flags, then AGENT_* variables, then the keys that are set.
// The SDK behind each provider is imported only when that provider is created.

export const PROVIDERS: ProviderName[] = ['anthropic', 'openai', 'openai-compatible', 'ollama'];

export interface ModelDefaults {
  chat: string;
  small: string;
  large: string;
}

export const DEFAULT_MODELS: Record<ProviderName, ModelDefaults | undefined> = {
  anthropic: { chat: 'claude-sonnet-5-5', small: 'claude-haiku-5-5', large: 'claude-sonnet-5-5' },
  openai: { chat: 'gpt-5.4-mini', small: 'gpt-5.4-mini', large: 'gpt-5.4' },
  ollama: { chat: 'llama3.1', small: 'llama3.1', large: 'llama3.1' },
  // Whatever the server serves: there is no sensible default name.
  'openai-compatible': undefined,
};

export const NO_PROVIDER_MESSAGE =
  'No model provider is configured. Set ANTHROPIC_API_KEY or OPENAI_API_KEY, or use a local server with ' +
  '--provider ollama (or --provider openai-compatible with OPENAI_BASE_URL). AGENT_PROVIDER picks one by default.';

/** `--provider`, else `AGENT_PROVIDER`, else the first key found; undefined when nothing is configured. */
export function resolveProviderName(
  flag: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): ProviderName | undefined {
  const chosen = flag ?? env.AGENT_PROVIDER;
  if (chosen) {
    if (!PROVIDERS.includes(chosen as ProviderName)) {
      throw new ConfigError(`Unknown provider "${chosen}". Choose one of: ${PROVIDERS.join(', ')}.`);
    }
    return chosen as ProviderName;
  }
  if (env.ANTHROPIC_API_KEY) return 'anthropic';
  if (env.OPENAI_API_KEY) return 'openai';
  return undefined;
}

/** A model for a role: the flag, then its variable, then the provider's default. */
export function resolveModel(
  provider: ProviderName,
  role: keyof ModelDefaults,
  flag: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
  /** Used only when the provider has no default (a chat's own model, for /research). */
  fallback?: string,
): string {
  const variable = { chat: 'AGENT_MODEL', small: 'AGENT_SMALL_MODEL', large: 'AGENT_LARGE_MODEL' }[role];
  const fromEnv = env[variable] || (role !== 'chat' ? env.AGENT_MODEL : undefined);
  const model = flag || fromEnv || DEFAULT_MODELS[provider]?.[role] || fallback;
  if (!model) {
    const option = { chat: '--model', small: '--small-model', large: '--large-model' }[role];
    throw new ConfigError(
      `Provider ${provider} has no default model: name one with ${option} or ${variable}.`,
    );
  }
  return model;
}

export async function createProvider(
  name: ProviderName,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Provider> {
  switch (name) {
    case 'anthropic': {
      if (!env.ANTHROPIC_API_KEY && !env.ANTHROPIC_AUTH_TOKEN) {
        throw new ConfigError('Provider anthropic needs ANTHROPIC_API_KEY to be set.');
      }
      const { createAnthropicProvider } = await import('./anthropic.js');
      return createAnthropicProvider();
    }
    case 'openai': {
      if (!env.OPENAI_API_KEY) throw new ConfigError('Provider openai needs OPENAI_API_KEY to be set.');
      const { createOpenAIResponsesProvider } = await import('./openai-responses.js');
      return createOpenAIResponsesProvider();
    }
    case 'ollama': {
      // Ollama's own API (it takes a context size per request; its OpenAI route does not).
      const [{ createOllamaProvider }, { ollamaBaseUrl }, { tokensSetting }] = await Promise.all([
        import('./ollama.js'),
        import('./ollama-host.js'),
        import('./context.js'),
      ]);
      const numCtx = tokensSetting(env, 'AGENT_NUM_CTX');
      return createOllamaProvider({ baseUrl: ollamaBaseUrl(env.OLLAMA_HOST), ...(numCtx ? { numCtx } : {}) });
    }
    case 'openai-compatible': {
      const [{ createOpenAIChatProvider }, { tokensSetting }] = await Promise.all([
        import('./openai-chat.js'),
        import('./context.js'),
      ]);
      const baseURL = env.OPENAI_BASE_URL;
      if (!baseURL)
        throw new ConfigError(
          'Provider openai-compatible needs OPENAI_BASE_URL (for example http://localhost:8000/v1).',
        );
      const contextTokens = tokensSetting(env, 'AGENT_CONTEXT_TOKENS');
      // Local servers need no key, but the SDK insists on one.
      return createOpenAIChatProvider({
        name: 'openai-compatible',
        baseURL,
        apiKey: env.OPENAI_API_KEY || 'not-needed',
        ...(contextTokens ? { contextTokens } : {}),
      });
    }
  }
}
