import type { NotesStore } from '../store/store.js';
import type { PageCache } from '../web/read.js';
import { resolveSearch } from '../web/search/config.js';
import { calculatorTool } from './calculator.js';
import { saveNoteTool, searchNotesTool } from './notes.js';
import { ToolRegistry } from './registry.js';
import type { AnyTool } from './tool.js';

/**
 * The tools `agent chat` offers. web_search only when a search backend is configured, so the model never
 * sees a tool that cannot work; a bad AGENT_SEARCH stops the chat at start with a ConfigError. `extra`:
 * tools from elsewhere (MCP servers), after the built-in ones. `pages`: the page cache read_url goes through.
 */
export async function buildChatTools(
  notes: NotesStore,
  env: NodeJS.ProcessEnv = process.env,
  extra: AnyTool[] = [],
  pages?: PageCache,
): Promise<ToolRegistry> {
  const tools: AnyTool[] = [calculatorTool];
  const { readUrlTool } = await import('./read-url.js');
  tools.push(readUrlTool(env, pages ? { cache: pages } : {}));
  // Resolved once for the session: every web_search call reuses it.
  const search = resolveSearch(env);
  if (search) {
    const { webSearchTool } = await import('./web-search.js');
    tools.push(webSearchTool(search));
  }
  tools.push(saveNoteTool(notes), searchNotesTool(notes));
  return new ToolRegistry([...tools, ...extra]);
}
