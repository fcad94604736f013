import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { colorEnabled } from '../../src/cli/style.js';
import { loadUserPrices } from '../../src/providers/price-file.js';
import { costOf, findPrice } from '../../src/providers/prices.js';
import { createProvider, resolveModel, resolveProviderName } from '../../src/providers/registry.js';
import { json, startFakeServer } from '../support/fake-server.js';

describe('provider and model resolution', () => {
  it('takes the flag, then AGENT_PROVIDER, then the first key found', () => {
    expect(resolveProviderName('ollama', { ANTHROPIC_API_KEY: 'k' })).toBe('ollama');
    expect(resolveProviderName(undefined, { AGENT_PROVIDER: 'openai', ANTHROPIC_API_KEY: 'k' })).toBe(
      'openai',
    );
    expect(resolveProviderName(undefined, { OPENAI_API_KEY: 'k', ANTHROPIC_API_KEY: 'k' })).toBe('anthropic');
    expect(resolveProviderName(undefined, { OPENAI_API_KEY: 'k' })).toBe('openai');
    expect(resolveProviderName(undefined, {})).toBeUndefined();
    expect(() => resolveProviderName('gemini', {})).toThrow(/Unknown provider "gemini"/);
  });

  it('picks models from flags, variables and per-provider defaults', () => {
    expect(resolveModel('anthropic', 'small', undefined, {})).toBe('claude-haiku-5-5');
    expect(resolveModel('anthropic', 'large', undefined, { AGENT_LARGE_MODEL: 'claude-opus-5-5' })).toBe(
      'claude-opus-5-5',
    );
    expect(resolveModel('openai', 'chat', 'gpt-6-sol', { AGENT_MODEL: 'x' })).toBe('gpt-6-sol');
    expect(resolveModel('openai-compatible', 'small', undefined, {}, 'qwen3')).toBe('qwen3');
    expect(() => resolveModel('openai-compatible', 'chat', undefined, {})).toThrow(/--model or AGENT_MODEL/);
  });

  it('ollama needs no key and speaks its native API at OLLAMA_HOST', async () => {
    const server = await startFakeServer(
      [],
      json(404, { error: 'model "m" not found, try pulling it first' }),
    );
    const host = new URL(server.url).host;
    const provider = await createProvider('ollama', { OLLAMA_HOST: host });
    await expect(
      provider.complete({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
    ).rejects.toThrow(/Ollama has no model "m" \(404\).*Pull it with: ollama pull m/);
    expect(server.requests.map((r) => r.url)).toEqual(['/api/show', '/api/chat']);
    await server.close();
  });

  it('refuses a provider whose key is missing, naming the variable', async () => {
    await expect(createProvider('anthropic', {})).rejects.toThrow(/ANTHROPIC_API_KEY/);
    await expect(createProvider('openai', {})).rejects.toThrow(/OPENAI_API_KEY/);
    await expect(createProvider('openai-compatible', {})).rejects.toThrow(/OPENAI_BASE_URL/);
  });
});

describe('prices', () => {
  it('reads a user price file that extends and overrides the table, and rejects a broken one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'agent-prices-'));
    const good = join(dir, 'prices.json');
    writeFileSync(
      good,
      JSON.stringify({
        'my-model': { input: 1, output: 2 },
        'gpt-5.4': { input: 9, output: 9, cacheRead: 1, cacheWrite: 9 },
      }),
    );
    const prices = loadUserPrices(good);
    expect(findPrice('openai-compatible', 'my-model', prices)).toMatchObject({
      input: 1,
      output: 2,
      cacheRead: 1,
      cacheWrite: 1,
    });
    expect(findPrice('openai', 'gpt-5.4-2026-03-05', prices)?.input).toBe(9);
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{"m": {"input": "cheap"}}');
    expect(() => loadUserPrices(bad)).toThrow(/price file .* is not valid/);
    expect(loadUserPrices(join(dir, 'missing.json'))).toEqual({});
  });

  it('charges the long-prompt tier on the whole call when the prompt is over its threshold', () => {
    const haiku = findPrice('anthropic', 'claude-haiku-5-5')!;
    const short = costOf(
      { input: 50_000, cacheRead: 0, cacheWrite: 0, output: 1_000_000, reasoning: 0 },
      haiku,
    );
    const long = costOf(
      { input: 150_000, cacheRead: 0, cacheWrite: 0, output: 1_000_000, reasoning: 0 },
      haiku,
    );
    expect(short).toBeCloseTo(0.005 + 0.5, 10);
    expect(long).toBeCloseTo(0.075 + 2.5, 10);
  });
});

describe('colours', () => {
  it('only on a terminal, never with NO_COLOR, always with FORCE_COLOR', () => {
    const tty = { isTTY: true } as NodeJS.WriteStream;
    const pipe = { isTTY: false } as NodeJS.WriteStream;
    expect(colorEnabled(tty, {})).toBe(true);
    expect(colorEnabled(pipe, {})).toBe(false);
    expect(colorEnabled(tty, { NO_COLOR: '1' })).toBe(false);
    expect(colorEnabled(pipe, { FORCE_COLOR: '1' })).toBe(true);
    expect(colorEnabled(tty, { TERM: 'dumb' })).toBe(false);
  });
});
