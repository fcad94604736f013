import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runTurn } from '../../src/loop/run-turn.js';
import { loggedCalls, MCP_RAW_SERVER, mcpTempDir, testServer } from '../support/mcp-config.js';
import { closeAllServers, loadServers, mcpTurnOptions, toolResults } from '../support/mcp-harness.js';
import { assertWellFormed, reply, text, toolCall } from '../support/scripted-provider.js';

afterEach(closeAllServers);

describe('tools from a stdio MCP server', () => {
  it('offers each tool as mcp__<server>__<tool> with its description and input schema', async () => {
    const { mcp, warnings } = await loadServers({ dict: testServer() });
    expect(warnings).toEqual([]);
    expect(mcp.servers).toEqual(['dict']);
    const { provider, options } = mcpTurnOptions(mcp, [reply([text('Hello.')])]);
    await runTurn([], 'hi', options);
    const offered = provider.requests[0]!.tools!.filter((t) => t.name.startsWith('mcp__'));
    expect(offered).toEqual([
      {
        name: 'mcp__dict__lookup',
        description: 'Looks up the meaning of a word in the dictionary.',
        parameters: {
          type: 'object',
          properties: { word: { type: 'string', minLength: 1, description: 'The word to look up' } },
          required: ['word'],
        },
      },
      {
        name: 'mcp__dict__save_entry',
        description: 'Saves a word and its meaning in the dictionary.',
        parameters: {
          type: 'object',
          properties: {
            word: { type: 'string', minLength: 1 },
            meaning: { type: 'string' },
            tags: { type: 'array', items: { type: 'string' }, maxItems: 3 },
          },
          required: ['word', 'meaning'],
        },
      },
    ]);
    expect([...mcp.origins]).toEqual([
      ['mcp__dict__lookup', 'dict'],
      ['mcp__dict__save_entry', 'dict'],
    ]);
  });

  it('runs the read-only tool without asking and refuses the other without --yes', async () => {
    const dir = mcpTempDir();
    const log = join(dir, 'calls.jsonl');
    const { mcp } = await loadServers({ dict: testServer('--log', log) });
    const script = () => [
      reply([
        toolCall('c1', 'mcp__dict__lookup', { word: 'cat' }),
        toolCall('c2', 'mcp__dict__save_entry', { word: 'cat', meaning: 'a pet' }),
      ]),
      reply([text('Done.')]),
    ];

    const piped = mcpTurnOptions(mcp, script());
    const r = await runTurn([], 'define and save cat', piped.options);
    assertWellFormed(r.messages);
    expect(toolResults(r.messages)).toEqual([
      {
        role: 'toolResult',
        toolCallId: 'c1',
        toolName: 'mcp__dict__lookup',
        content: 'cat: a word in the test dictionary.',
        isError: false,
      },
      {
        role: 'toolResult',
        toolCallId: 'c2',
        toolName: 'mcp__dict__save_entry',
        content:
          "Not run: mcp__dict__save_entry needs the user's confirmation and there is no terminal to ask. The user can allow it with --yes.",
        isError: true,
      },
    ]);
    expect(loggedCalls(log)).toEqual([{ tool: 'lookup', args: { word: 'cat' } }]);

    const asked: string[] = [];
    const terminal = mcpTurnOptions(mcp, script(), {
      confirm: async (call) => {
        asked.push(call.name);
        return true;
      },
    });
    await runTurn([], 'again', terminal.options);
    expect(asked).toEqual(['mcp__dict__save_entry']);

    const approved = mcpTurnOptions(mcp, script(), { autoApprove: true });
    const r3 = await runTurn([], 'with --yes', approved.options);
    expect(toolResults(r3.messages).map((m) => [m.content, m.isError])).toEqual([
      ['cat: a word in the test dictionary.', false],
      ['Saved "cat".', false],
    ]);
    expect(loggedCalls(log).map((c) => c.tool)).toEqual([
      'lookup',
      'lookup',
      'save_entry',
      'lookup',
      'save_entry',
    ]);
  });

  it('refuses an invalid call with a precise error before it reaches the server', async () => {
    const dir = mcpTempDir();
    const log = join(dir, 'calls.jsonl');
    const { mcp } = await loadServers({ dict: testServer('--log', log) });
    const { options } = mcpTurnOptions(
      mcp,
      [
        reply([
          toolCall('a', 'mcp__dict__lookup', { word: 5 }),
          toolCall('b', 'mcp__dict__save_entry', { word: 'cat', tags: ['a', 'b', 'c', 'd'] }),
          toolCall('c', 'mcp__dict__lookup', '{"word": "ca'),
        ]),
        reply([text('Sorry.')]),
      ],
      { autoApprove: true },
    );
    const r = await runTurn([], 'go', options);
    expect(toolResults(r.messages).map((m) => [m.content, m.isError])).toEqual([
      ['Invalid arguments for mcp__dict__lookup: "word": must be string, not number.', true],
      [
        'Invalid arguments for mcp__dict__save_entry: "meaning": is required; "tags": must NOT have more than 3 items.',
        true,
      ],
      [
        expect.stringMatching(
          /^Invalid arguments for mcp__dict__lookup: the arguments are not complete JSON/,
        ),
        true,
      ],
    ]);
    expect(loggedCalls(log)).toEqual([]);
  });

  it('summarises images and resources in one line each', async () => {
    const { mcp } = await loadServers({ dict: testServer('--image') });
    const { options } = mcpTurnOptions(mcp, [
      reply([toolCall('c1', 'mcp__dict__lookup', { word: 'cat' })]),
      reply([text('A cat.')]),
    ]);
    const r = await runTurn([], 'define cat', options);
    expect(toolResults(r.messages)[0]!.content).toBe(
      [
        'cat: a word in the test dictionary.',
        '[image: image/png, 70 bytes]',
        '[resource link: entries.db file:///dict/entries.db (application/x-sqlite3)]',
        '[resource: file:///dict/notes.txt, text/plain]',
        'Usage notes.',
      ].join('\n'),
    );
  });

  it("starts servers with a safe default environment plus their own env, variables taken from the user's", async () => {
    // In this process's environment, as an API key would be: a server must not see it.
    process.env.MCP_TEST_GREETING = 'inherited';
    try {
      const { mcp } = await loadServers(
        {
          mine: { ...testServer(), env: { MCP_TEST_GREETING: 'configured' } },
          // biome-ignore lint/suspicious/noTemplateCurlyInString: the configuration's own syntax
          passed: { ...testServer(), env: { MCP_TEST_GREETING: '${GREETING_SOURCE} on purpose' } },
          plain: testServer(),
        },
        { env: { ...process.env, GREETING_SOURCE: 'expanded' } },
      );
      const { options } = mcpTurnOptions(mcp, [
        reply([
          toolCall('a', 'mcp__mine__lookup', { word: 'x' }),
          toolCall('b', 'mcp__passed__lookup', { word: 'y' }),
          toolCall('c', 'mcp__plain__lookup', { word: 'z' }),
        ]),
        reply([text('ok')]),
      ]);
      const r = await runTurn([], 'go', options);
      expect(toolResults(r.messages).map((m) => m.content)).toEqual([
        'x: a word in the test dictionary. configured',
        'y: a word in the test dictionary. expanded on purpose',
        'z: a word in the test dictionary.',
      ]);
    } finally {
      delete process.env.MCP_TEST_GREETING;
    }
  });
});

describe('tools a server names and describes its own way', () => {
  it('pages through the list, leaves out malformed tools, cleans names, keeps schemas usable and calls the original name', async () => {
    const dir = mcpTempDir();
    const log = join(dir, 'calls.jsonl');
    const spec = join(dir, 'spec.json');
    const long = `export_${'quarterly_'.repeat(6)}report`;
    writeFileSync(
      spec,
      JSON.stringify({
        pageSize: 2,
        tools: [
          { name: 'get.user', inputSchema: { type: 'object', properties: { id: { type: 'integer' } } } },
          {
            name: 'get_user',
            description: 'Gets a user by login.',
            inputSchema: {
              $schema: 'https://json-schema.org/draft/2020-12/schema',
              type: 'object',
              properties: { login: { $ref: '#/$defs/Login' }, org: { $ref: 'https://example.com/org.json' } },
              required: ['login'],
              $defs: { Login: { type: 'string', pattern: '^[a-z]+$' } },
            },
            annotations: { readOnlyHint: true },
          },
          { name: long, title: 'Export a report', inputSchema: { type: 'object' } },
          { name: 'broken', inputSchema: { type: 'object', properties: { a: { type: 'nonsense' } } } },
          { name: 'not_an_object', inputSchema: { type: 'string' } },
          { name: 'weather', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } },
        ],
        results: {
          'get.user': { content: [{ type: 'text', text: 'No such user.' }], isError: true },
          weather: { content: [], structuredContent: { celsius: 21 } },
        },
      }),
    );
    const { mcp, warnings } = await loadServers({
      gh: { command: process.execPath, args: [MCP_RAW_SERVER, spec, '--log', log] },
    });
    expect(warnings).toEqual([
      'The tool "not_an_object" of the MCP server "gh" is left out: its description is not valid MCP (inputSchema.type: Invalid input: expected "object").',
      expect.stringMatching(
        /^The tool "broken" of the MCP server "gh" is left out: its input schema is not usable JSON Schema/,
      ),
    ]);
    const names = mcp.tools.map((t) => t.name);
    expect(names).toEqual([
      expect.stringMatching(/^mcp__gh__get_user_[0-9a-f]{8}$/),
      'mcp__gh__get_user',
      expect.stringMatching(/^mcp__gh__export_quarterly_.*_[0-9a-f]{8}$/),
      'mcp__gh__weather',
    ]);
    for (const n of names) expect(n).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    const getUser = mcp.tools[1]!;
    expect(getUser.parameters).toEqual({
      type: 'object',
      properties: { login: { $ref: '#/$defs/Login' }, org: {} },
      required: ['login'],
      $defs: { Login: { type: 'string', pattern: '^[a-z]+$' } },
    });
    expect(mcp.tools[2]!.description).toBe('Export a report');

    const { options } = mcpTurnOptions(
      mcp,
      [
        reply([
          toolCall('a', names[0]!, { id: 7 }),
          toolCall('b', 'mcp__gh__get_user', { login: 'Octocat' }),
          toolCall('c', 'mcp__gh__get_user', { login: 'octocat' }),
          toolCall('d', 'mcp__gh__weather', {}),
        ]),
        reply([text('ok')]),
      ],
      { autoApprove: true },
    );
    const r = await runTurn([], 'go', options);
    expect(toolResults(r.messages).map((m) => [m.content, m.isError])).toEqual([
      [`${names[0]} failed: No such user.`, true],
      ['Invalid arguments for mcp__gh__get_user: "login": must match pattern "^[a-z]+$".', true],
      ['called get_user', false],
      ['{\n  "celsius": 21\n}', false],
    ]);
    expect(loggedCalls(log)).toEqual([
      { tool: 'get.user', args: { id: 7 } },
      { tool: 'get_user', args: { login: 'octocat' } },
      { tool: 'weather', args: {} },
    ]);
  });
});
