import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { checkDatabasePath } from '../../src/cli/db-path-check.js';
import { ConfigError } from '../../src/errors.js';
import { formatUsd } from '../../src/money.js';
import { runCli } from '../support/cli.js';

// Messages that name the real problem, and money said by one rule.

describe('a --db path that is not a database', () => {
  const dir = () => mkdtempSync(join(tmpdir(), 'agent-dbpath-'));

  it('a folder is called a folder', () => {
    const folder = dir();
    expect(() => checkDatabasePath(folder, {})).toThrow(ConfigError);
    expect(() => checkDatabasePath(folder, {})).toThrow(
      `The database ${folder} is a folder: give the path of a database file, for example ${folder}/agent.db.`,
    );
  });

  it('a text file, or other data, is not an SQLite database (not a damaged one)', () => {
    const d = dir();
    writeFileSync(join(d, 'notes.txt'), 'Just some notes.\n');
    expect(() => checkDatabasePath(join(d, 'notes.txt'), {})).toThrow(
      `${join(d, 'notes.txt')} is not an SQLite database (it holds text): give a database file, a new file name to start one, or a postgres:// URL.`,
    );
    writeFileSync(join(d, 'image.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0]));
    expect(() => checkDatabasePath(join(d, 'image.png'), {})).toThrow(
      /is not an SQLite database \(it holds other data\)/,
    );
  });

  it("passes a database, a new or empty file, a postgres URL, and the environment's choice", () => {
    const d = dir();
    const db = join(d, 'real.db');
    new Database(db).exec('CREATE TABLE t (x)');
    expect(() => checkDatabasePath(db, {})).not.toThrow();
    expect(() => checkDatabasePath(join(d, 'new.db'), {})).not.toThrow();
    writeFileSync(join(d, 'empty.db'), '');
    expect(() => checkDatabasePath(join(d, 'empty.db'), {})).not.toThrow();
    expect(() => checkDatabasePath('postgres://alice@localhost/team', {})).not.toThrow();
    mkdirSync(join(d, 'sub'));
    expect(() => checkDatabasePath(undefined, { AGENT_DB: join(d, 'sub') })).toThrow(/is a folder/);
  });
});

describe('the CLI with such a --db', () => {
  it('says "is a folder" and "not an SQLite database", exit 2, never "damaged" nor db recover', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'agent-dbpath-'));
    const text = join(folder, 'notes.txt');
    writeFileSync(text, 'Just some notes.\n');
    for (const args of [
      ['--db', folder, 'cost'],
      ['--db', text, 'cost'],
      ['--db', text, 'research', 'q'],
    ]) {
      const r = await runCli(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(
        args[1] === folder
          ? /^agent: The database .* is a folder: /
          : /is not an SQLite database \(it holds text\)/,
      );
      expect(r.stderr).not.toMatch(/damaged|recover/);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
  });
});

describe('money', () => {
  it('four significant digits under $1, cents from $1, unknown when unpriced', () => {
    expect(formatUsd(null)).toBe('unknown');
    expect(formatUsd(0)).toBe('$0.00');
    expect(formatUsd(0.05)).toBe('$0.05000');
    expect(formatUsd(0.0058)).toBe('$0.005800');
    expect(formatUsd(0.003125)).toBe('$0.003125');
    expect(formatUsd(0.123456)).toBe('$0.1235');
    expect(formatUsd(0.99996)).toBe('$1.00');
    expect(formatUsd(1.005)).toBe('$1.00');
    expect(formatUsd(12.345)).toBe('$12.35');
    expect(formatUsd(0.0000001234)).toBe('$0.0000001234');
  });
});
