import type { Ora } from 'ora';
import type { ChatSession } from '../../chat/session.js';
import type { Price } from '../../providers/prices.js';
import type { ModelSetup } from '../../research/pipeline.js';
import type { Store } from '../../store/store.js';
import type { ToolRegistry } from '../../tools/registry.js';
import type { ChatMcp } from './mcp-start.js';

export interface ChatOptions {
  provider?: string;
  model?: string;
  maxTurns: number;
  yes?: boolean;
  content?: string;
  db?: string;
  /** Resume the most recently used session. */
  continue?: boolean;
  /** Resume this session. */
  session?: number;
  /** The MCP servers file (`--mcp`). */
  mcp?: string;
  /** A spending cap in US dollars for this chat (`--max-cost`). */
  maxCost?: number;
  /** How long read_url (and /research) use a cached page without asking its server (`--max-age`, ms). */
  maxAge?: number;
  /** `--refresh`: read_url and /research fetch afresh (and still cache what they fetch). */
  refresh?: boolean;
}

/** What the chat's input loops share: the session, its store, and what /research needs. */
export interface Chat {
  session: ChatSession;
  store: Store;
  options: ChatOptions;
  label: string;
  research: ModelSetup;
  userPrices: Record<string, Price>;
  /** Every tool offered, and for MCP tools the server each comes from (for /tools). */
  tools: { registry: ToolRegistry; origins: Map<string, string> };
  /** MCP servers starting in the background: waited for (briefly) before each message. */
  mcp?: ChatMcp;
  /** Set while the terminal chat shows its prompt: draws it again after a note printed under it. */
  redrawPrompt?: () => void;
  /** Aborted by SIGTERM or SIGHUP: the running turn is cancelled and the chat ends. */
  leave: AbortSignal;
  spinner?: Ora;
  /** The spending cap, when one is set. */
  cap?: ChatCap;
}

/** A chat's spending cap (`--max-cost`), kept with the chat; see cap.ts. */
export interface ChatCap {
  limitUsd: number;
  /** When the cap took effect (ms). */
  since: number;
  /** The ledger runs this chat has used: a new one after each /clear. */
  runs: Set<string>;
}
