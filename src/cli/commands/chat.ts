import { constants } from 'node:os';
import { maxAgeSetting } from '../../cache/duration.js';
import { pageCache } from '../../cache/pages.js';
import { adaptHistory, reasoningNotice } from '../../chat/resume.js';
import { ChatSession, type SessionOptions } from '../../chat/session.js';
import { chatSystemPrompt } from '../../chat/system-prompt.js';
import { ConfigError, errorMessage, UsageError } from '../../errors.js';
import type { McpServers } from '../../mcp/index.js';
import { loadUserPrices } from '../../providers/price-file.js';
import {
  createProvider,
  NO_PROVIDER_MESSAGE,
  PROVIDERS,
  resolveModel,
  resolveProviderName,
} from '../../providers/registry.js';
import type { ModelSetup } from '../../research/pipeline.js';
import { maxCostSetting, requirePrices } from '../../research/run/budget.js';
import type { SessionSummary, Store } from '../../store/store.js';
import { buildChatTools } from '../../tools/index.js';
import type { Provider, ProviderName } from '../../types.js';
import { newCap } from '../chat/cap.js';
import type { Chat, ChatOptions } from '../chat/context.js';
import { ChatMcp } from '../chat/mcp-start.js';
import { openDb } from '../open-db.js';
import { formatWhen, styleFor } from '../style.js';

export type { ChatOptions };

export async function runChat(options: ChatOptions): Promise<void> {
  if (options.continue && options.session !== undefined)
    throw new UsageError('Use --continue or --session <id>, not both.');
  // Only the mode in use is loaded (piped input needs no line editor or Markdown renderer), and it and the
  // MCP client start loading now: their files are read while the database opens and the SDK loads.
  const mode = process.stdin.isTTY ? import('../chat/interactive.js') : import('../chat/piped.js');
  const mcpClient = import('../../mcp/index.js');
  const userPrices = loadUserPrices();
  const maxCostUsd = maxCostSetting(options.maxCost, process.env);
  const maxAgeMs = maxAgeSetting(options.maxAge, process.env);
  const store = await openDb(options.db);
  let servers: McpServers | undefined;
  const leave = new AbortController();
  const onSignal = (signal: NodeJS.Signals) => {
    // A second signal means now; the first shuts servers down as leaving the chat does.
    if (leave.signal.aborted) process.exit(process.exitCode);
    process.exitCode = 128 + (constants.signals[signal] ?? 0);
    leave.abort();
    // Bounded: the shutdown sequence ends in SIGKILL within about 5 s; never wait on anything else.
    setTimeout(() => process.exit(process.exitCode), 8000).unref();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGHUP', onSignal);
  try {
    const saved = await savedSession(store, options);
    const { providerName, model, provider, notice } = await chooseModel(options, saved);
    const notices = notice ? [notice] : [];
    // A team database that does not keep this chat private (superuser, BYPASSRLS, a shared role) says so.
    const privacy = await store.privacyWarning?.();
    if (privacy) notices.push(privacy);
    let resume: SessionOptions['resume'];
    if (saved) {
      const adapted = adaptHistory(await store.sessions.messages(saved.id), {
        provider: providerName,
        model,
      });
      // Another person's session is read-only: its history is this chat's context, nothing is added to it.
      const theirs = saved.user !== '' && saved.user !== store.user;
      resume = theirs
        ? { history: adapted.messages }
        : { id: saved.id, runId: saved.runId, history: adapted.messages };
      notices.unshift(
        theirs
          ? `Session #${saved.id} is ${saved.user}'s, so it is read-only: its ${saved.exchanges} exchange(s) are the start of this chat, which is saved as a new session of yours.`
          : `Resuming session #${saved.id} (${saved.exchanges} exchange(s), last used ${formatWhen(saved.updatedAt)}).`,
      );
      const dropped = reasoningNotice(adapted);
      if (dropped) notices.push(dropped);
    }
    const { startMcpServers } = await mcpClient;
    const warn = styleFor(process.stderr).yellow;
    const dim = styleFor(process.stderr).dim;
    // A server can stop or become ready at any moment, even while an answer streams: its line stands alone.
    let chat: Chat | undefined;
    const note = (line: string) => {
      process.stderr.write(`\n${line}\n`);
      chat?.redrawPrompt?.();
    };
    // Started in the background: the chat does not wait for them until a message is sent.
    servers = await startMcpServers({
      configPath: options.mcp,
      env: process.env,
      onWarning: (m) => note(warn(`agent: ${m}`)),
      onLateReady: (name, n) =>
        note(dim(`The MCP server "${name}" is ready: its ${n} tool(s) join with the next message.`)),
    });
    // read_url goes through the page cache, as research's page reads do.
    const pages = pageCache(store.cache, { maxAgeMs, refresh: options.refresh, env: process.env });
    const registry = await buildChatTools(store.notes, process.env, [], pages);
    const sessionOptions: SessionOptions = {
      provider,
      model,
      system: chatSystemPrompt(registry.names),
      registry,
      maxTurns: options.maxTurns,
      autoApprove: options.yes,
      store,
      userPrices,
      resume,
    };
    const session = new ChatSession(sessionOptions);
    // The session reads its options at each message, so tools that join update the prompt that names them.
    const mcp = new ChatMcp(servers, registry, () => {
      sessionOptions.system = chatSystemPrompt(registry.names);
    });
    const research: ModelSetup = {
      provider,
      smallModel: resolveModel(providerName, 'small', undefined, process.env, model),
      largeModel: resolveModel(providerName, 'large', undefined, process.env, model),
    };
    if (maxCostUsd !== undefined)
      requirePrices(providerName, [model, research.smallModel, research.largeModel], userPrices);
    // Start-up notices go to stderr in both modes, so piped answers stay clean on stdout.
    for (const line of notices) process.stderr.write(`${dim(line)}\n`);
    chat = {
      session,
      store,
      options,
      label: `${providerName} ${model}`,
      research,
      userPrices,
      tools: { registry, origins: mcp.origins },
      mcp,
      leave: leave.signal,
      cap: maxCostUsd === undefined ? undefined : newCap(maxCostUsd),
    };
    const loaded = await mode;
    await ('interactive' in loaded ? loaded.interactive(chat) : loaded.piped(chat));
    // Writes kept while the database server was away get one more try; what is left is said, exit 1.
    const unsaved = await session.flush();
    if (unsaved > 0) {
      process.stderr.write(
        `agent: ${unsaved} write(s) of this chat (exchanges, ledger rows) were not saved: the database server did not come back.\n`,
      );
      process.exitCode ||= 1;
    }
  } finally {
    // Servers are children of this process: shut them down on every way out.
    await servers?.close();
    await store.close();
    process.off('SIGTERM', onSignal);
    process.off('SIGHUP', onSignal);
  }
}

/** The session `--session` or `--continue` names; unknown ones are usage errors that say how to list. */
async function savedSession(store: Store, options: ChatOptions): Promise<SessionSummary | undefined> {
  if (options.session !== undefined) {
    // Another person's session is found too (where the database lets this user see it): read-only.
    const found = await store.sessions.get(options.session, { all: true });
    if (!found)
      throw new UsageError(
        `There is no chat session #${options.session}. \`agent sessions\` lists them with their numbers.`,
      );
    return found;
  }
  if (!options.continue) return undefined;
  const latest = await store.sessions.latest();
  if (!latest)
    throw new UsageError(
      'There is no saved chat session to continue yet: `agent chat` starts one, `agent sessions` lists them.',
    );
  return latest;
}

interface ModelChoice {
  providerName: ProviderName;
  model: string;
  provider: Provider;
  notice?: string;
}

/**
 * Flags and variables as usual; a resumed session without `--provider` or `--model` keeps its own
 * provider and model when that provider is usable here, else falls back to the configured default.
 */
async function chooseModel(options: ChatOptions, saved: SessionSummary | undefined): Promise<ModelChoice> {
  let unusable: string | undefined;
  if (saved && !options.provider && !options.model) {
    const own = PROVIDERS.find((p) => p === saved.provider);
    try {
      if (own) return { providerName: own, model: saved.model, provider: await createProvider(own) };
      unusable = `this version does not know provider ${saved.provider}.`;
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      unusable = errorMessage(error);
    }
  }
  const why =
    saved &&
    unusable &&
    `Session #${saved.id} was with ${saved.provider} ${saved.model}, but ${lowerFirst(unusable)}`;
  const providerName = resolveProviderName(options.provider);
  if (!providerName) throw new ConfigError(why || NO_PROVIDER_MESSAGE);
  const model = resolveModel(providerName, 'chat', options.model);
  const provider = await createProvider(providerName);
  return {
    providerName,
    model,
    provider,
    notice: why ? `${why} Continuing with ${providerName} ${model}.` : undefined,
  };
}

const lowerFirst = (s: string) => s.charAt(0).toLowerCase() + s.slice(1);
