import { describe, expect, it } from 'vitest';
import { fullToolName, PROVIDER_TOOL_NAME, providerToolNames } from '../../src/mcp/names.js';
import { portableSchema } from '../../src/mcp/schema.js';
import { SchemaCompiler } from '../../src/mcp/validator.js';
import { strictSchema } from '../../src/providers/openai-responses.js';

describe('tool names', () => {
  it('keeps names that are already safe, as mcp__<server>__<tool>', () => {
    const full = fullToolName('files', 'read_file');
    expect(providerToolNames([full]).get(full)).toBe('mcp__files__read_file');
  });

  it('cleans odd characters and shortens long names, the same way every time', () => {
    const odd = fullToolName('gh', 'repos.get/contents v2');
    const long = fullToolName('warehouse', `query_${'inventory_'.repeat(8)}by_sku`);
    const names = providerToolNames([odd, long]);
    expect(names.get(odd)).toBe('mcp__gh__repos_get_contents_v2');
    const short = names.get(long)!;
    expect(short).toHaveLength(64);
    expect(short).toMatch(/^mcp__warehouse__query_inventory_inventory_.*_[0-9a-f]{8}$/);
    for (const n of names.values()) expect(n).toMatch(PROVIDER_TOOL_NAME);
    // Deterministic, whatever order the servers list their tools in.
    expect(providerToolNames([long, odd])).toEqual(names);
  });

  it('resolves collisions deterministically: an exact name keeps it, others get a hash', () => {
    const exact = fullToolName('s', 'get_user');
    const dotted = fullToolName('s', 'get.user');
    const spaced = fullToolName('s', 'get user');
    const a = providerToolNames([dotted, exact, spaced]);
    const b = providerToolNames([spaced, dotted, exact]);
    expect(a).toEqual(b);
    expect(a.get(exact)).toBe('mcp__s__get_user');
    expect(a.get(dotted)).toMatch(/^mcp__s__get_user_[0-9a-f]{8}$/);
    expect(a.get(spaced)).toMatch(/^mcp__s__get_user_[0-9a-f]{8}$/);
    expect(new Set(a.values()).size).toBe(3);
  });

  it('gives distinct names to long names that share their first 64 characters', () => {
    const base = `very_long_tool_name_${'x'.repeat(60)}`;
    const one = fullToolName('s', `${base}_one`);
    const two = fullToolName('s', `${base}_two`);
    const names = providerToolNames([one, two]);
    expect(names.get(one)).not.toBe(names.get(two));
    for (const n of names.values()) expect(n).toMatch(PROVIDER_TOOL_NAME);
  });
});

describe('schemas offered to providers', () => {
  it('drops $schema and $id and keeps an object with properties at the top', () => {
    expect(
      portableSchema({
        $schema: 'http://json-schema.org/draft-07/schema#',
        $id: 'urn:tool',
        type: 'object',
        properties: { q: { type: 'string' } },
        required: ['q'],
        additionalProperties: false,
      }),
    ).toEqual({
      type: 'object',
      properties: { q: { type: 'string' } },
      required: ['q'],
      additionalProperties: false,
    });
    expect(portableSchema({ type: 'object' })).toEqual({ type: 'object', properties: {} });
    expect(portableSchema(undefined)).toEqual({ type: 'object', properties: {} });
  });

  it('keeps $refs that resolve and loosens those that do not', () => {
    const schema = portableSchema({
      type: 'object',
      properties: {
        item: { $ref: '#/$defs/Item' },
        remote: { $ref: 'https://example.com/schemas/thing.json', description: 'a thing' },
        missing: { $ref: '#/$defs/Nope' },
      },
      $defs: { Item: { type: 'object', properties: { sku: { type: 'string' } } } },
    });
    expect(schema.properties).toEqual({
      item: { $ref: '#/$defs/Item' },
      remote: { description: 'a thing' },
      missing: {},
    });
    expect(schema.$defs).toEqual({ Item: { type: 'object', properties: { sku: { type: 'string' } } } });
  });

  it('inlines a top-level $ref and lifts properties out of top-level combinators', () => {
    expect(
      portableSchema({
        type: 'object',
        $ref: '#/definitions/Args',
        definitions: { Args: { type: 'object', properties: { a: { type: 'number' } }, required: ['a'] } },
      }),
    ).toMatchObject({ type: 'object', properties: { a: { type: 'number' } }, required: ['a'] });

    const lifted = portableSchema({
      type: 'object',
      properties: { mode: { type: 'string' } },
      oneOf: [
        { properties: { path: { type: 'string' } }, required: ['path'] },
        { properties: { url: { type: 'string' } }, required: ['url'] },
      ],
    });
    expect(lifted).toEqual({
      type: 'object',
      properties: { mode: { type: 'string' }, path: { type: 'string' }, url: { type: 'string' } },
    });
  });

  it('is sent strict to OpenAI only when the schema allows it', () => {
    const closed = portableSchema({
      type: 'object',
      properties: { q: { type: 'string' } },
      required: ['q'],
      additionalProperties: false,
    });
    expect(strictSchema(closed)).toBeDefined();
    expect(
      strictSchema(portableSchema({ type: 'object', properties: { q: { type: 'string' } } })),
    ).toBeUndefined();
  });
});

describe('argument checks against the server schema', () => {
  const compiler = new SchemaCompiler();

  it('says what is wrong, in the style of the built-in tools', () => {
    const check = compiler.compile({
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: {
        word: { type: 'string', minLength: 1 },
        mode: { enum: ['short', 'long'] },
        tags: { type: 'array', items: { type: 'string' }, maxItems: 2 },
      },
      required: ['word'],
      additionalProperties: false,
    });
    expect(check({ word: 'cat', tags: ['a'] })).toEqual({ ok: true, value: { word: 'cat', tags: ['a'] } });
    expect(check({})).toEqual({ ok: false, error: '"word": is required' });
    expect(check({ word: 3 })).toEqual({ ok: false, error: '"word": must be string, not number' });
    expect(check({ word: '', mode: 'huge', tags: ['a', 1, 'c'], extra: true })).toEqual({
      ok: false,
      error:
        '"extra": unknown property; "word": must NOT have fewer than 1 characters; "mode": must be one of "short", "long"; "tags": must NOT have more than 2 items; "tags.1": must be string, not number',
    });
  });

  it('follows $refs and uses 2020-12 when no draft is named', () => {
    const check = compiler.compile({
      type: 'object',
      properties: { items: { type: 'array', prefixItems: [{ $ref: '#/$defs/Sku' }] } },
      $defs: { Sku: { type: 'string', pattern: '^[A-Z]{3}-\\d+$' } },
    });
    expect(check({ items: ['ABC-1'] }).ok).toBe(true);
    expect(check({ items: ['abc'] })).toEqual({
      ok: false,
      error: '"items.0": must match pattern "^[A-Z]{3}-\\d+$"',
    });
  });

  it('compiles tools that share an $id, and refuses a schema that is not JSON Schema', () => {
    const tool = (type: string) => ({
      $id: 'https://example.com/schemas/tool.json',
      type: 'object',
      properties: { a: { $ref: '#/$defs/A' } },
      $defs: { A: { type } },
    });
    expect(compiler.compile(tool('number'))({ a: 1 }).ok).toBe(true);
    expect(compiler.compile(tool('string'))({ a: 'x' }).ok).toBe(true);
    expect(compiler.compile(tool('string'))({ a: 1 }).ok).toBe(false);
    expect(() => compiler.compile({ type: 'object', properties: { a: { type: 'no-such-type' } } })).toThrow();
  });
});
