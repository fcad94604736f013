import { ConfigError } from '../errors.js';

// How long a cached page is used without asking the server again (--max-age), and how old an entry must
// be to go (agent cache --clear --older-than): a number and a unit, or 0.

const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 } as const;

/** A day: a page read this morning is not fetched again this afternoon, yesterday's is asked about. */
export const DEFAULT_MAX_AGE_MS = UNIT_MS.d;

export const DURATION_EXPECTED = 'expected a duration like 30m, 12h or 7d (s, m, h, d or w), or 0';

/** `30m`, `12h`, `7d`, `2w`, `45s` or `0` → milliseconds; undefined when it is none of these. */
export function parseDuration(text: string): number | undefined {
  const match = /^\s*(\d+)\s*([smhdw])?\s*$/i.exec(text);
  if (!match) return undefined;
  const n = Number(match[1]);
  if (!Number.isSafeInteger(n)) return undefined;
  // A bare number is only 0: "30" could mean seconds or days.
  if (!match[2]) return n === 0 ? 0 : undefined;
  return n * UNIT_MS[match[2].toLowerCase() as keyof typeof UNIT_MS];
}

/** `--max-age` when given, else `AGENT_MAX_AGE` (empty means unset), else a day. */
export function maxAgeSetting(flag: number | undefined, env: NodeJS.ProcessEnv): number {
  if (flag !== undefined) return flag;
  const raw = env.AGENT_MAX_AGE;
  if (!raw) return DEFAULT_MAX_AGE_MS;
  const ms = parseDuration(raw);
  if (ms === undefined)
    throw new ConfigError(`AGENT_MAX_AGE=${raw} is not a valid age: ${DURATION_EXPECTED}.`);
  return ms;
}
