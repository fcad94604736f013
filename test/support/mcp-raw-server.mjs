#!/usr/bin/env node
// A stdio MCP server that lists whatever tools a JSON file describes, in pages, and answers calls
// with the results that file gives: for tool names, schemas and results the SDK's McpServer would
// not produce. Usage: node mcp-raw-server.mjs <spec.json> [--log <file>]
//   spec: {"tools": [Tool, ...], "pageSize"?: n, "results"?: {"<tool name>": CallToolResult}}
import { appendFileSync, readFileSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const [specPath, ...rest] = process.argv.slice(2);
const spec = JSON.parse(readFileSync(specPath, 'utf8'));
const log = rest[0] === '--log' ? rest[1] : undefined;
const pageSize = spec.pageSize ?? spec.tools.length;

const server = new Server({ name: 'raw', version: '1.0.0' }, { capabilities: { tools: {} } });

server.setRequestHandler(ListToolsRequestSchema, async (request) => {
  const start = Number(request.params?.cursor ?? 0);
  const end = start + pageSize;
  return {
    tools: spec.tools.slice(start, end),
    ...(end < spec.tools.length ? { nextCursor: String(end) } : {}),
  };
});

server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const { name, arguments: args } = request.params;
  if (log) appendFileSync(log, `${JSON.stringify({ tool: name, args })}\n`);
  return spec.results?.[name] ?? { content: [{ type: 'text', text: `called ${name}` }] };
});

await server.connect(new StdioServerTransport());
