import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliResult, ROOT, runCli, tempDb } from '../support/cli.js';
import { mcpTempDir, writeMcpConfig } from '../support/mcp-config.js';
import { offeredTools, pidsWith, resultsOf, startStepModel } from '../support/mcp-model.js';

// `agent chat` with two real third-party servers, `server-everything` and `server-filesystem`, started
// once: one piped chat goes through every step, then each test checks what its step produced.

const EVERYTHING = join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const FILESYSTEM = join(ROOT, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
const SECRET = 'sk-ant-test-secret-that-must-not-leak';

describe('agent chat with server-everything and server-filesystem', () => {
  const dir = mcpTempDir();
  const allowed = join(dir, 'allowed');
  // The everything server ignores arguments after its transport: this one finds its process.
  const tag = `--agent-test=${dir}`;
  let model: Awaited<ReturnType<typeof startStepModel>>;
  let run: CliResult;

  beforeAll(async () => {
    mkdirSync(allowed);
    // 30,000 bytes: as base64, 40,000 characters that must never reach the model.
    writeFileSync(join(allowed, 'picture.png'), randomBytes(30_000));
    writeFileSync(join(dir, 'outside.txt'), 'not for the model');
    model = await startStepModel({
      env: [{ name: 'mcp__everything__get-env' }],
      image: [
        { name: 'mcp__everything__get-tiny-image' },
        { name: 'mcp__files__read_media_file', args: { path: join(allowed, 'picture.png') } },
      ],
      outside: [{ name: 'mcp__files__read_text_file', args: { path: join(dir, 'outside.txt') } }],
      write: [{ name: 'mcp__files__write_file', args: { path: join(allowed, 'new.txt'), content: 'hello' } }],
      parallel: Array.from({ length: 12 }, (_, i) => ({
        name: 'mcp__everything__echo',
        args: { message: `m${i}` },
      })),
      kill: async () => {
        const [pid] = pidsWith(tag);
        process.kill(pid!, 'SIGKILL');
        while (pidsWith(tag).length) await delay(20);
        return [{ name: 'mcp__everything__echo', args: { message: 'still there?' } }];
      },
    });
    const config = writeMcpConfig(dir, {
      everything: {
        command: process.execPath,
        args: [EVERYTHING, 'stdio', tag],
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the configuration's own syntax
        env: { SHARED: '${AGENT_TEST_SHARED}' },
      },
      files: { command: process.execPath, args: [FILESYSTEM, allowed] },
    });
    run = await runCli(['chat', '--provider', 'openai-compatible', '-m', 'm', '--mcp', config], {
      env: {
        OPENAI_BASE_URL: `${model.url}/v1`,
        AGENT_DB: tempDb(),
        ANTHROPIC_API_KEY: SECRET,
        AGENT_TEST_SHARED: 'shared on purpose',
        // A busy machine can take seconds to start a server: the whole chat waits for them here.
        AGENT_MCP_GRACE: '120',
      },
      input: 'env\nimage\noutside\nwrite\nparallel\n/tools\nkill\n',
    });
  });
  afterAll(() => model?.close());

  it('runs the whole chat', () => {
    expect(run.stderr).not.toMatch(/unexpected error/);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/done: kill/);
  });

  it("hands a server only the safe default environment and its entry's env, never an API key", () => {
    const [result] = resultsOf(model.requests, 'env');
    expect(result).not.toContain(SECRET);
    const env = JSON.parse(result!) as Record<string, string>;
    expect(env.SHARED).toBe('shared on purpose');
    expect(Object.keys(env).sort()).toEqual(
      expect.arrayContaining(['PATH', 'SHARED'].filter((k) => k === 'SHARED' || process.env[k])),
    );
    for (const key of Object.keys(env))
      expect(['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER', 'SHARED']).toContain(key);
  });

  it('sends images as one-line placeholders: no base64 reaches the model', () => {
    const [tiny, media] = resultsOf(model.requests, 'image');
    expect(tiny).toMatch(
      /^Here's the image you requested:\n\[image: image\/png, \d+ (bytes|KB)\]\nThe image above/,
    );
    // The filesystem server also sends the image as structured content.
    expect(media).toMatch(/\[image: image\/png, 29 KB\]/);
    for (const req of model.requests) expect(JSON.stringify(req.body)).not.toMatch(/[A-Za-z0-9+/]{200}/);
  });

  it("passes on the filesystem server's refusal of a path outside its folder", () => {
    const [result] = resultsOf(model.requests, 'outside');
    expect(result).toMatch(
      /mcp__files__read_text_file failed: .*(outside allowed directories|Access denied)/,
    );
    expect(result).not.toContain('not for the model');
  });

  it('does not write without confirmation on a pipe', () => {
    const [result] = resultsOf(model.requests, 'write');
    expect(result).toMatch(/needs the user's confirmation.*--yes/);
    expect(existsSync(join(allowed, 'new.txt'))).toBe(false);
  });

  it('makes 12 parallel calls with no warning on stderr', () => {
    expect(resultsOf(model.requests, 'parallel')).toEqual(
      Array.from({ length: 12 }, (_, i) => `Echo: m${i}`),
    );
    expect(run.stderr).not.toMatch(/MaxListenersExceededWarning|Warning:/);
  });

  it('does not offer a tool that needs task support, and /tools says so', () => {
    expect(run.stdout).toMatch(
      /^mcp__everything__simulate-research-query\s+MCP server "everything" \(not offered: it needs MCP task support, which agent does not have\)$/m,
    );
    expect(run.stdout).toMatch(/^mcp__files__write_file\s+MCP server "files", asks first$/m);
    for (const req of model.requests) {
      expect(offeredTools(req)).not.toContain('mcp__everything__simulate-research-query');
    }
    expect(offeredTools(model.requests[0]!)).toEqual(
      expect.arrayContaining(['mcp__everything__echo', 'mcp__files__read_media_file']),
    );
  });

  it('says how a killed server ended, without its start-up banner', () => {
    const [result] = resultsOf(model.requests, 'kill');
    expect(result).toMatch(
      /mcp__everything__echo failed: the MCP server "everything" stopped: it was killed by SIGKILL$/,
    );
    expect(run.stderr).toMatch(
      /The MCP server "everything" stopped: it was killed by SIGKILL\. Its tools are no longer offered/,
    );
    expect(run.stderr).not.toMatch(/Starting default/);
  });
});
