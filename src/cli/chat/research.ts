import { maxAgeSetting } from '../../cache/duration.js';
import { contentDirectory } from '../../research/content-folder.js';
import { runResearch } from '../../research/pipeline.js';
import { printResearch } from '../commands/research.js';
import { ResearchRenderer, sourceList } from '../research-render.js';
import { capSpent } from './cap.js';
import type { Chat } from './context.js';

/**
 * The research chain inside a chat: its calls are recorded under the session, so /cost includes them;
 * only a finished run enters the conversation, so a failure leaves the history as it was.
 */
export async function researchInChat(chat: Chat, question: string, signal: AbortSignal): Promise<void> {
  if (!question) {
    process.stdout.write('Usage: /research <question>\n');
    return;
  }
  const renderer = new ResearchRenderer(chat.spinner, Boolean(process.stdout.isTTY));
  let result: Awaited<ReturnType<typeof runResearch>>;
  let ok = false;
  try {
    result = await runResearch({
      question,
      store: chat.store,
      contentDir: contentDirectory(chat.options.content),
      env: process.env,
      models: chat.research,
      runId: chat.session.runId,
      userPrices: chat.userPrices,
      // Under a cap, research stops collecting at what is left of it.
      maxCostUsd: chat.cap ? Math.max(0, chat.cap.limitUsd - (await capSpent(chat, chat.cap))) : undefined,
      maxAgeMs: maxAgeSetting(chat.options.maxAge, process.env),
      refresh: chat.options.refresh,
      signal,
      onEvent: renderer.handle,
    });
    ok = true;
  } finally {
    renderer.finishProgress(ok);
  }
  printResearch(result, renderer.answerShown);
  await chat.session.remember(
    `Research this question: ${question}`,
    `${result.answer}\n\nSources:\n${sourceList(result)}`,
  );
}
