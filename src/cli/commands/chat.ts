import { randomUUID } from 'node:crypto';
import { ChatSession } from '../../chat/session.js';
import { chatSystemPrompt } from '../../chat/system-prompt.js';
import { ConfigError } from '../../errors.js';
import { loadUserPrices } from '../../providers/price-file.js';
import {
  createProvider,
  NO_PROVIDER_MESSAGE,
  resolveModel,
  resolveProviderName,
} from '../../providers/registry.js';
import type { ModelSetup } from '../../research/pipeline.js';
import { openStore } from '../../store/open.js';
import { buildChatTools } from '../../tools/index.js';
import type { Chat, ChatOptions } from '../chat/context.js';
import { interactive } from '../chat/interactive.js';
import { piped } from '../chat/piped.js';

export type { ChatOptions };

export async function runChat(options: ChatOptions): Promise<void> {
  const providerName = resolveProviderName(options.provider);
  if (!providerName) throw new ConfigError(NO_PROVIDER_MESSAGE);
  const model = resolveModel(providerName, 'chat', options.model);
  const userPrices = loadUserPrices();
  const provider = await createProvider(providerName);
  const db = openStore(options.db);
  try {
    const registry = await buildChatTools(db);
    const session = new ChatSession({
      provider,
      model,
      system: chatSystemPrompt(registry.names),
      registry,
      maxTurns: options.maxTurns,
      autoApprove: options.yes,
      db,
      runId: randomUUID(),
      userPrices,
    });
    const research: ModelSetup = {
      provider,
      smallModel: resolveModel(providerName, 'small', undefined, process.env, model),
      largeModel: resolveModel(providerName, 'large', undefined, process.env, model),
    };
    const chat: Chat = { session, db, options, label: `${providerName} ${model}`, research, userPrices };
    if (process.stdin.isTTY) await interactive(chat);
    else await piped(chat);
  } finally {
    db.close();
  }
}
