import { expect, it } from 'vitest';
import { parseSince } from '../../src/cli/since.js';

it('parses durations and dates, refuses anything else with a clear message', () => {
  const now = Date.UTC(2026, 10, 29, 12);
  expect(parseSince('7d', now)).toBe(now - 7 * 86_400_000);
  expect(parseSince('12h', now)).toBe(now - 12 * 3_600_000);
  expect(parseSince('2026-11-01', now)).toBe(new Date(2026, 10, 1).getTime());
  expect(() => parseSince('2026-02-30', now)).toThrow(/Invalid --since/);
  expect(() => parseSince('yesterday', now)).toThrow(/7d/);
});
