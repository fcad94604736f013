import { userInfo } from 'node:os';
import { UsageError } from '../errors.js';

/** A person's label is at most this long: `agent cost --by user` stays readable for everyone. */
export const MAX_USER_LENGTH = 64;

/**
 * The person this process records rows for: AGENT_USER, else the operating-system user name, else
 * 'unknown' (a user id with no name, as in some containers). Control characters go, and the label is
 * cut to 64 characters. On a team database where each person has a role, the role is the author instead.
 */
export function currentUser(env: NodeJS.ProcessEnv = process.env): string {
  const named = label(env.AGENT_USER ?? '');
  if (named) return named;
  try {
    return label(userInfo().username) || 'unknown';
  } catch {
    return 'unknown';
  }
}

/** Without control characters (a label is printed in tables), at most 64 characters. */
const label = (text: string): string =>
  [...text.replace(/[\u0000-\u001f\u007f]/g, '').trim()].slice(0, MAX_USER_LENGTH).join('').trim();

/**
 * A person deletes only their own notes and reports (and those kept before people were recorded): the
 * refusal for another's, exit 2.
 */
export function refuseOthers(what: 'note' | 'report', id: number, author: string | null, user: string): void {
  if (author && author !== user) throw notYours(what, id, author, user);
}

export const notYours = (what: 'note' | 'report', id: number, author: string, user: string): UsageError =>
  new UsageError(
    `${what === 'note' ? 'Note' : 'Report'} #${id} is ${author}'s: only its author can delete it (you are ${user}).`,
  );
