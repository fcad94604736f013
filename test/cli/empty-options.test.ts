import { describe, expect, it } from 'vitest';
import { runCli, tempDb } from '../support/cli.js';

// An option given an empty value (`--model "$MODEL"` with MODEL unset) is a mistake to report, never a
// quiet fall-back to the default: every option that takes a name, id or path.

const CASES: [string[], string][] = [
  [['--db', '', 'cost'], "option '--db <path>'"],
  [['chat', '--model', ''], "option '-m, --model <id>'"],
  [['chat', '--mcp', ''], "option '--mcp <file>'"],
  [['chat', '--content', ''], "option '--content <dir>'"],
  [['research', 'q', '--small-model', ''], "option '--small-model <id>'"],
  [['research', 'q', '--large-model', ' '], "option '--large-model <id>'"],
  [['research', 'q', '--content', ''], "option '--content <dir>'"],
  [['research', 'q', '-o', ''], "option '-o, --out <file>'"],
  [['reports', '--show', '1', '--out', ''], "option '-o, --out <file>'"],
  [['cost', '--since', ''], '--since'],
];

describe('empty option values', () => {
  it.each(CASES)('agent %j is a usage error naming the option', async (args, option) => {
    const r = await runCli(args, { env: { AGENT_DB: tempDb() } });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(option);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});
