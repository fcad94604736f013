#!/usr/bin/env node
// A real stdio MCP server for the tests, built with the SDK's McpServer. Two tools: `lookup`
// (read-only) and `save_entry` (writes). Behaviour from argv:
//   --log <file>         append every call as a JSON line {"tool", "args"} (proof a call arrived)
//   --pid-file <file>    write this process's pid at start
//   --crash-on <tool>    exit(3) with a message on stderr when that tool is called
//   --hang-on <tool>     never answer calls of that tool
//   --image              `lookup` also returns an image, a resource link and an embedded resource
//   --fail-start         print an error on stderr and exit(1) before speaking MCP
//   --slow-start <ms>    wait that long before speaking MCP (a server slow to start)
//   --banner             print a start-up banner on stderr, as many servers do
//   --ready-file <file>  create that file once a client has initialised the connection
// Env MCP_TEST_GREETING, when set, is part of `lookup`'s answer (proof the env reached the server).
import { appendFileSync, writeFileSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const argv = process.argv.slice(2);
const flag = (name) => argv.includes(name);
const value = (name) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};

if (flag('--fail-start')) {
  process.stderr.write('fatal: cannot open the dictionary database /nonexistent/dict.db\n');
  process.exit(1);
}
if (value('--pid-file')) writeFileSync(value('--pid-file'), String(process.pid));
if (flag('--banner')) process.stderr.write('Dictionary MCP Server running on stdio\n');
if (value('--slow-start')) await new Promise((r) => setTimeout(r, Number(value('--slow-start'))));

const log = value('--log');
const record = (tool, args) => {
  if (log) appendFileSync(log, `${JSON.stringify({ tool, args })}\n`);
};

/** Applies the crash and hang options, then returns the real answer. */
async function behave(tool, answer) {
  if (value('--crash-on') === tool) {
    process.stderr.write('panic: the dictionary index is corrupt\n');
    process.exit(3);
  }
  if (value('--hang-on') === tool) await new Promise(() => {});
  return answer();
}

// A 1x1 PNG, base64.
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

const server = new McpServer({ name: 'dictionary', version: '1.0.0' });

server.registerTool(
  'lookup',
  {
    title: 'Look up a word',
    description: 'Looks up the meaning of a word in the dictionary.',
    inputSchema: { word: z.string().min(1).describe('The word to look up') },
    annotations: { readOnlyHint: true },
  },
  async ({ word }) => {
    record('lookup', { word });
    return behave('lookup', () => {
      const greeting = process.env.MCP_TEST_GREETING ? ` ${process.env.MCP_TEST_GREETING}` : '';
      const content = [{ type: 'text', text: `${word}: a word in the test dictionary.${greeting}` }];
      if (flag('--image')) {
        content.push(
          { type: 'image', data: PNG, mimeType: 'image/png' },
          {
            type: 'resource_link',
            uri: 'file:///dict/entries.db',
            name: 'entries.db',
            mimeType: 'application/x-sqlite3',
          },
          {
            type: 'resource',
            resource: { uri: 'file:///dict/notes.txt', mimeType: 'text/plain', text: 'Usage notes.' },
          },
        );
      }
      return { content };
    });
  },
);

server.registerTool(
  'save_entry',
  {
    description: 'Saves a word and its meaning in the dictionary.',
    inputSchema: {
      word: z.string().min(1),
      meaning: z.string(),
      tags: z.array(z.string()).max(3).optional(),
    },
  },
  async (args) => {
    record('save_entry', args);
    return behave('save_entry', () => ({ content: [{ type: 'text', text: `Saved "${args.word}".` }] }));
  },
);

if (value('--ready-file'))
  server.server.oninitialized = () => writeFileSync(value('--ready-file'), String(process.pid));

await server.connect(new StdioServerTransport());
