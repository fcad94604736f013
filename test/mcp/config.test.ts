/** biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} is the configuration's own syntax */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { loadMcpConfig, mcpTimeouts } from '../../src/mcp/config.js';
import { loadMcpTools } from '../../src/mcp/index.js';

const dir = () => mkdtempSync(join(tmpdir(), 'agent-mcp-config-'));

function file(content: unknown): string {
  const path = join(dir(), 'mcp.json');
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

/** The one line a user would see, or a failure if the file was accepted. */
async function problem(content: unknown): Promise<string> {
  const path = file(content);
  try {
    await loadMcpConfig({ configPath: path });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).exitCode).toBe(2);
    const message = (error as Error).message;
    expect(message).toContain(path);
    expect(message).not.toContain('\n');
    return message;
  }
  throw new Error('the file was accepted');
}

describe('mcp.json', () => {
  it('reads stdio and Streamable HTTP servers in the shape other clients use', async () => {
    const path = file({
      mcpServers: {
        files: { command: 'npx', args: ['-y', 'some-server'], env: { TOKEN: 'x' }, cwd: 'servers/files' },
        remote: { type: 'http', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer t' } },
        bare: { command: 'uvx', autoApprove: ['read'] },
        off: { command: 'never', disabled: true },
      },
    });
    const servers = await loadMcpConfig({ configPath: path });
    expect(servers).toEqual([
      {
        name: 'files',
        transport: 'stdio',
        command: 'npx',
        args: ['-y', 'some-server'],
        env: { TOKEN: 'x' },
        cwd: join(path, '..', 'servers', 'files'),
      },
      {
        name: 'remote',
        transport: 'http',
        url: new URL('https://mcp.example.com/mcp'),
        headers: { Authorization: 'Bearer t' },
      },
      { name: 'bare', transport: 'stdio', command: 'uvx', args: [], env: {} },
    ]);
  });

  it('means no servers when the default file does not exist, and reads it when it does', async () => {
    const config = dir();
    const env = { XDG_CONFIG_HOME: config };
    expect(await loadMcpConfig({ env })).toEqual([]);
    const loaded = await loadMcpTools({ env });
    expect(loaded.tools).toEqual([]);
    await loaded.close();

    mkdirSync(join(config, 'agent'));
    writeFileSync(join(config, 'agent', 'mcp.json'), '{"mcpServers": {"x": {"command": "x"}}}');
    expect((await loadMcpConfig({ env })).map((s) => s.name)).toEqual(['x']);
  });

  it('refuses an explicit file that does not exist', async () => {
    const path = join(dir(), 'nope.json');
    await expect(loadMcpConfig({ configPath: path })).rejects.toThrow(
      new ConfigError(`The MCP configuration ${path} does not exist.`),
    );
  });

  it('says what is wrong with a malformed file, in one line naming it', async () => {
    expect(await problem('{"mcpServers": {')).toMatch(/is not valid: not JSON \(/);
    expect(await problem({ servers: {} })).toMatch(/expected \{"mcpServers": \{"name": \{"command"/);
    expect(await problem({ mcpServers: [] })).toMatch(/mcpServers: must be an object of named servers/);
    expect(await problem({ mcpServers: { a: {} } })).toMatch(
      /mcpServers\.a: needs "command" \(a program to start\) or "url" \(a Streamable HTTP endpoint\)/,
    );
    expect(await problem({ mcpServers: { a: { command: 'x', url: 'https://x' } } })).toMatch(
      /mcpServers\.a: has both "command" and "url"; give one/,
    );
    expect(await problem({ mcpServers: { a: { command: 'x', args: ['ok', 3] } } })).toMatch(
      /mcpServers\.a\.args\.1: .*expected string, received number/,
    );
    expect(await problem({ mcpServers: { a: { command: 'x', env: { PORT: 8080 } } } })).toMatch(
      /mcpServers\.a\.env\.PORT: .*expected string/,
    );
    expect(await problem({ mcpServers: { a: { url: 'ftp://example.com' } } })).toMatch(
      /"url" must be an http or https URL, not "ftp:\/\/example.com"/,
    );
    expect(await problem({ mcpServers: { a: { type: 'sse', url: 'https://x/sse' } } })).toMatch(
      /the old SSE transport is not supported/,
    );
    expect(await problem({ mcpServers: { 'my server!': { command: 'x' } } })).toMatch(
      /the server name "my server!" must be 1 to 32 letters, digits, "_" or "-"/,
    );
  });

  it('fails before starting anything when the file is malformed', async () => {
    const path = file({ mcpServers: { a: { command: 'node', args: 7 } } });
    await expect(loadMcpTools({ configPath: path })).rejects.toThrow(ConfigError);
  });

  it('expands ${VAR} in env, args, url and headers from the environment given', async () => {
    const path = file({
      mcpServers: {
        local: {
          command: '${NOT_EXPANDED}',
          args: ['--root', '${HOME_DIR}/notes', '${MISSING:-fallback}'],
          env: { TOKEN: 'Bearer ${TOKEN}', PLAIN: '$TOKEN' },
        },
        remote: { url: 'https://${HOST}/mcp', headers: { Authorization: 'Bearer ${TOKEN}' } },
        off: { command: 'x', env: { A: '${UNSET_BUT_DISABLED}' }, disabled: true },
      },
    });
    const env = { HOME_DIR: '/home/me', TOKEN: 't0k', HOST: 'mcp.example.com', NOT_EXPANDED: 'no' };
    expect(await loadMcpConfig({ configPath: path, env })).toEqual([
      {
        name: 'local',
        transport: 'stdio',
        command: '${NOT_EXPANDED}',
        args: ['--root', '/home/me/notes', 'fallback'],
        env: { TOKEN: 'Bearer t0k', PLAIN: '$TOKEN' },
      },
      {
        name: 'remote',
        transport: 'http',
        url: new URL('https://mcp.example.com/mcp'),
        headers: { Authorization: 'Bearer t0k' },
      },
    ]);
  });

  it('refuses a ${VAR} that is not set, naming it and where it is (exit 2)', async () => {
    const path = file({ mcpServers: { gh: { command: 'x', env: { GITHUB_TOKEN: '${GH_TOKEN}' } } } });
    const error = await (async () => {
      try {
        await loadMcpConfig({ configPath: path, env: {} });
      } catch (e) {
        return e as ConfigError;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect(error!.exitCode).toBe(2);
    expect(error!.message).toBe(
      `The MCP configuration ${path} is not valid: mcpServers.gh.env.GITHUB_TOKEN: the environment variable GH_TOKEN (in "\${GH_TOKEN}") is not set.`,
    );
  });

  it('takes time limits from the environment, in seconds', () => {
    expect(mcpTimeouts({})).toEqual({ startupMs: 15_000, callMs: 60_000, graceMs: 3000 });
    expect(
      mcpTimeouts({
        AGENT_MCP_STARTUP_TIMEOUT: '2.5',
        AGENT_MCP_TOOL_TIMEOUT: '300',
        AGENT_MCP_GRACE: '0.5',
      }),
    ).toEqual({ startupMs: 2500, callMs: 300_000, graceMs: 500 });
    expect(() => mcpTimeouts({ AGENT_MCP_TOOL_TIMEOUT: 'soon' })).toThrow(
      'AGENT_MCP_TOOL_TIMEOUT must be a number of seconds greater than 0, not "soon".',
    );
  });
});
