import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

/**
 * A Streamable HTTP MCP server on loopback, made with the SDK's server transport (stateful: one
 * session per client). One read-only tool, `echo`. Records every HTTP request's method and headers.
 */
export async function startMcpHttpServer() {
  const requests: { method: string; headers: IncomingHttpHeaders }[] = [];
  const calls: unknown[] = [];
  const sessions = new Map<string, StreamableHTTPServerTransport>();

  const newSession = () => {
    const mcp = new McpServer({ name: 'remote', version: '1.0.0' });
    mcp.registerTool(
      'echo',
      {
        description: 'Repeats the text it is given.',
        inputSchema: { text: z.string() },
        annotations: { readOnlyHint: true },
      },
      async ({ text }) => {
        calls.push({ text });
        return { content: [{ type: 'text', text: `echo: ${text}` }] };
      },
    );
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, transport);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    void mcp.connect(transport);
    return transport;
  };

  const server = createServer(async (req, res) => {
    requests.push({ method: req.method ?? '', headers: req.headers });
    const id = req.headers['mcp-session-id'];
    const transport = typeof id === 'string' ? sessions.get(id) : newSession();
    if (!transport) {
      res.writeHead(404).end();
      return;
    }
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    requests,
    calls,
    sessions,
    /** Stops listening and drops every connection: the server is gone. */
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
