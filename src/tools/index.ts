import type { Db } from '../store/open.js';
import { calculatorTool } from './calculator.js';
import { saveNoteTool, searchNotesTool } from './notes.js';
import { ToolRegistry } from './registry.js';
import type { AnyTool } from './tool.js';

/** The tools `agent chat` offers. web_search only when a search key is set, so the model never sees a tool that cannot work. */
export async function buildChatTools(db: Db, env: NodeJS.ProcessEnv = process.env): Promise<ToolRegistry> {
  const tools: AnyTool[] = [calculatorTool];
  const { readUrlTool } = await import('./read-url.js');
  tools.push(readUrlTool(env));
  if (env.BRAVE_SEARCH_KEY) {
    const { webSearchTool } = await import('./web-search.js');
    tools.push(webSearchTool(env));
  }
  tools.push(saveNoteTool(db), searchNotesTool(db));
  return new ToolRegistry(tools);
}
