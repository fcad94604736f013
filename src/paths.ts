import { homedir } from 'node:os';
import { join } from 'node:path';

/** `$XDG_DATA_HOME/agent`, else `~/.local/share/agent`: agent's own folder, kept private (0700). */
export function dataDirectory(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_DATA_HOME || join(homedir(), '.local', 'share'), 'agent');
}

/** `AGENT_DB`, else `$XDG_DATA_HOME/agent/agent.db`, else `~/.local/share/agent/agent.db`. */
export function defaultDatabasePath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.AGENT_DB) return env.AGENT_DB;
  return join(dataDirectory(env), 'agent.db');
}

/** `$XDG_CONFIG_HOME/agent`, else `~/.config/agent`. */
export function configDirectory(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'agent');
}

/** `$XDG_CACHE_HOME/agent`, else `~/.cache/agent`: what can be made again (the code cache). */
export function cacheDirectory(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'agent');
}
