import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { loadUserPrices, priceFileProblems } from '../../src/providers/price-file.js';
import { runCli, tempDb } from '../support/cli.js';
import { sse, startFakeServer } from '../support/fake-server.js';
import { chatSse } from '../support/sse-builders.js';

const dir = mkdtempSync(join(tmpdir(), 'agent-price-file-'));
let n = 0;
/** A price file holding `text` (JSON written as is). */
function priceFile(text: string): string {
  const path = join(dir, `prices-${++n}.json`);
  writeFileSync(path, text);
  return path;
}

/** The ConfigError a user would see for this file, named by AGENT_PRICES. */
function refusal(env: NodeJS.ProcessEnv): string {
  try {
    loadUserPrices(undefined, env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).exitCode).toBe(2);
    return (error as Error).message;
  }
  throw new Error('the price file was accepted');
}

describe('the price file', () => {
  it('reads AGENT_PRICES, filling cache prices from the input price', () => {
    const path = priceFile(
      '{"local": {"input": 0, "output": 0}, "big": {"input": 3, "output": 15, "cacheRead": 0.3}}',
    );
    expect(loadUserPrices(undefined, { AGENT_PRICES: path })).toEqual({
      local: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, source: `user file ${path}` },
      big: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3, source: `user file ${path}` },
    });
  });

  it('is optional at the default path, but a file named by AGENT_PRICES must exist', () => {
    expect(loadUserPrices(undefined, { XDG_CONFIG_HOME: join(dir, 'no-config') })).toEqual({});
    const missing = join(dir, 'missing.json');
    expect(refusal({ AGENT_PRICES: missing })).toBe(
      `The price file ${missing} (AGENT_PRICES) does not exist.`,
    );
  });

  it('lists each problem on its own line with its key, then the expected shape', () => {
    const path = priceFile(
      '{"m1": {"input": "cheap", "output": -1, "cacheRaed": 1}, "m2": 5, "m3": {"output": 2}, "m4": {"input": null, "output": [1]}}',
    );
    expect(refusal({ AGENT_PRICES: path }).split('\n')).toEqual([
      `The price file ${path} is not valid:`,
      '  "m1".input: expected a price from 0 to 1,000,000 (USD per million tokens), got "cheap"',
      '  "m1".output: expected a price from 0 to 1,000,000 (USD per million tokens), got -1',
      '  "m1".cacheRaed: unknown key (the keys are input, output, cacheRead, cacheWrite)',
      '  "m2": expected an object with "input" and "output", got 5',
      '  "m3".input: missing',
      '  "m4".input: expected a price from 0 to 1,000,000 (USD per million tokens), got null',
      '  "m4".output: expected a price from 0 to 1,000,000 (USD per million tokens), got a list',
      'Expected {"model-id": {"input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75}} in USD per million tokens.',
    ]);
  });

  it('refuses prices that are not finite or would make a cost overflow', () => {
    // 1e400 is Infinity once parsed; 1e308 is finite but a cost of a few tokens at it is not.
    expect(
      priceFileProblems(JSON.parse('{"m": {"input": 1e400, "output": 1e308, "cacheWrite": -0.5}}')),
    ).toEqual([
      '"m".input: expected a price from 0 to 1,000,000 (USD per million tokens), got a number too large to represent',
      '"m".output: expected a price from 0 to 1,000,000 (USD per million tokens), got 1e+308',
      '"m".cacheWrite: expected a price from 0 to 1,000,000 (USD per million tokens), got -0.5',
    ]);
    expect(priceFileProblems({ m: { input: 1_000_000, output: 0 } })).toEqual([]);
  });

  it('says when the file is not JSON or not an object of models', () => {
    const broken = priceFile('{"m": {"input": 1,');
    expect(refusal({ AGENT_PRICES: broken })).toMatch(
      new RegExp(`^The price file ${broken} is not JSON \\(`),
    );
    expect(refusal({ AGENT_PRICES: priceFile('[1, 2]') })).toMatch(
      /is not valid:\n {2}expected an object of models, got a list\n/,
    );
  });
});

describe('agent with a bad price file', () => {
  let server: Awaited<ReturnType<typeof startFakeServer>>;
  beforeAll(async () => {
    server = await startFakeServer([], () => sse(chatSse({ text: 'unused' })));
  });
  afterAll(() => server.close());

  const research = (prices: string) =>
    runCli(['research', 'How much can a support agent refund?', '--provider', 'openai-compatible'], {
      env: {
        AGENT_PRICES: prices,
        AGENT_SMALL_MODEL: 's',
        AGENT_LARGE_MODEL: 'l',
        OPENAI_BASE_URL: `${server.url}/v1`,
        AGENT_DB: tempDb(),
      },
    });

  it('stops before any model call: exit 2, the problems on stderr, nothing on stdout', async () => {
    const missing = await research(join(dir, 'gone.json'));
    expect(missing.code).toBe(2);
    expect(missing.stdout).toBe('');
    expect(missing.stderr).toBe(
      `agent: The price file ${join(dir, 'gone.json')} (AGENT_PRICES) does not exist.\n`,
    );

    const path = priceFile('{"l": {"input": 1e400, "output": 1}}');
    const huge = await research(path);
    expect(huge.code).toBe(2);
    expect(huge.stderr).toContain(
      `agent: The price file ${path} is not valid:\n  "l".input: expected a price`,
    );
    expect(huge.stderr).not.toMatch(/unexpected error|at .*\.js:\d+/);
    expect(server.requests).toHaveLength(0);
  });
});
