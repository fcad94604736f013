import { createHash } from 'node:crypto';

// Every provider refuses a request whose tool names fall outside this pattern (a 400 for the whole
// chat), so a server's own names are never sent as they are.
export const PROVIDER_TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const MAX = 64;

const hash8 = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 8);

/** The name Claude Code uses, before it is made safe. */
export const fullToolName = (server: string, tool: string) => `mcp__${server}__${tool}`;

/** Odd characters become `_`; a name too long is cut and ends with a hash of the whole original. */
function candidate(full: string, withHash: boolean): string {
  const cleaned = full.replace(/[^a-zA-Z0-9_-]/g, '_');
  if (!withHash && cleaned.length <= MAX) return cleaned;
  return `${cleaned.slice(0, MAX - 9)}_${hash8(full)}`;
}

/**
 * Provider-safe names for every `mcp__<server>__<tool>` name, the same for the same set of tools in
 * any order. When two names clean to the same result, a name that needed no cleaning keeps it, and
 * every other one gets a hash of its original name. Names in `taken` (tools already offered) are
 * never given out again.
 */
export function providerToolNames(
  fullNames: readonly string[],
  alreadyTaken: ReadonlySet<string> = new Set(),
): Map<string, string> {
  const groups = new Map<string, string[]>();
  for (const full of new Set(fullNames)) {
    const c = candidate(full, false);
    groups.set(c, [...(groups.get(c) ?? []), full]);
  }
  const out = new Map<string, string>();
  const taken = new Set(alreadyTaken);
  for (const [c, members] of groups) {
    if (taken.has(c)) continue;
    const keeper = members.length === 1 ? members[0] : members.find((m) => m === c);
    if (keeper !== undefined) {
      out.set(keeper, c);
      taken.add(c);
    }
  }
  for (const [, members] of groups) {
    for (const full of [...members].sort()) {
      if (out.has(full)) continue;
      const name = candidate(full, true);
      // Another tool already holds this hashed name only if two hashes of different names agree
      // in 32 bits; say nothing clever, just never send a duplicate.
      if (taken.has(name)) continue;
      out.set(full, name);
      taken.add(name);
    }
  }
  return out;
}
