import { userInfo } from 'node:os';

/**
 * The person this process records rows for: AGENT_USER, else the operating-system user name, else
 * 'unknown' (a user id with no name, as in some containers).
 */
export function currentUser(env: NodeJS.ProcessEnv = process.env): string {
  const named = env.AGENT_USER?.trim();
  if (named) return named;
  try {
    return userInfo().username || 'unknown';
  } catch {
    return 'unknown';
  }
}
