import { formatUsd } from '../style.js';
import type { Chat, ChatCap } from './context.js';

// `chat --max-cost`: the spend of this chat from its start (a resumed session's earlier spend is not
// counted), across /clear and /research. A turn that would start at or past the cap is refused.

export const newCap = (limitUsd: number): ChatCap => ({ limitUsd, since: Date.now(), runs: new Set() });

/** What this chat has spent under its cap. */
export function capSpent(chat: Chat, cap: ChatCap): Promise<number> {
  cap.runs.add(chat.session.runId);
  return chat.store.ledger.spentSince([...cap.runs], cap.since);
}

/** The line that refuses a typed message or /research at or past the cap; undefined when it may go. */
export async function capRefusal(chat: Chat, typed: string): Promise<string | undefined> {
  const cap = chat.cap;
  const spends = !typed.startsWith('/') || typed.startsWith('//') || /^\/research\b/.test(typed);
  if (!cap || !spends) return undefined;
  const spent = await capSpent(chat, cap);
  if (spent < cap.limitUsd) return undefined;
  return `Not sent: this chat has spent ${formatUsd(spent)} of its ${formatUsd(cap.limitUsd)} cap (--max-cost). Raise it with /max-cost <usd>, or leave and run agent chat --continue --max-cost <usd>.`;
}
