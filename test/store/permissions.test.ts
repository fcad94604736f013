import { chmodSync, chownSync, mkdirSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/sqlite/open.js';
import { runCli } from '../support/cli.js';

// Chats hold what people type: agent's data folder is 0700 and the database with its -wal and -shm
// files 0600, whatever the umask, and anything found more open is tightened once, with one notice.

const mode = (path: string) => statSync(path).mode & 0o777;
const isRoot = process.getuid?.() === 0;

let home: string;
let savedUmask: number;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'agent-perm-'));
  savedUmask = process.umask(0o022);
});
afterEach(() => {
  process.umask(savedUmask);
});

/** Opens as agent does by default: the database in $XDG_DATA_HOME/agent, notices collected. */
function open(path: string, env = { XDG_DATA_HOME: home }) {
  const notices: string[] = [];
  const db = openDatabase(path, { env, onNotice: (m) => notices.push(m) });
  return { db, notices };
}

describe('a new database', () => {
  it.each([
    ['the usual umask 022', 0o022],
    ['umask 000, which would leave everything open', 0o000],
    ['umask 277, which would leave the owner unable to write', 0o277],
  ])('is created private under %s', (_label, umask) => {
    process.umask(umask);
    const folder = join(home, 'agent');
    const path = join(folder, 'agent.db');
    const { db, notices } = open(path);
    db.prepare('INSERT INTO notes (content, created_at) VALUES (?, ?)').run('a private note', Date.now());
    // While the database is open in WAL mode, its -wal and -shm files exist too.
    expect(mode(folder)).toBe(0o700);
    expect(mode(path)).toBe(0o600);
    expect(mode(`${path}-wal`)).toBe(0o600);
    expect(mode(`${path}-shm`)).toBe(0o600);
    expect(notices).toEqual([]); // nothing was tightened: it was made private
    db.close();
  });

  it('makes every folder it creates 0700, for the default place and for --db alike', () => {
    const path = join(home, 'nested', 'deeper', 'agent.db');
    open(path).db.close();
    expect(mode(join(home, 'nested'))).toBe(0o700);
    expect(mode(join(home, 'nested', 'deeper'))).toBe(0o700);
    expect(mode(path)).toBe(0o600);
  });

  it('leaves an in-memory database alone', () => {
    const { db, notices } = open(':memory:');
    expect(db.prepare('SELECT COUNT(*) AS n FROM notes').get()).toEqual({ n: 0 });
    expect(notices).toEqual([]);
    db.close();
  });
});

describe('a database found more open', () => {
  it('is tightened once, with one notice naming what changed', () => {
    const folder = join(home, 'agent');
    const path = join(folder, 'agent.db');
    // An older version made them with the umask's modes. Keep one connection open so that the -wal
    // and -shm files exist, as they do while another chat is running.
    const first = open(path).db;
    first.prepare('INSERT INTO notes (content, created_at) VALUES (?, ?)').run('written', Date.now());
    chmodSync(folder, 0o755);
    for (const f of [path, `${path}-wal`, `${path}-shm`]) chmodSync(f, 0o644);

    const second = open(path);
    expect(mode(folder)).toBe(0o700);
    expect([mode(path), mode(`${path}-wal`), mode(`${path}-shm`)]).toEqual([0o600, 0o600, 0o600]);
    expect(second.notices).toEqual([
      `Tightened permissions of ${folder} to 0700 and of ${path}, ${path}-wal, ${path}-shm to 0600: they hold your chats.`,
    ]);
    // The data is untouched and readable through both connections.
    expect(second.db.prepare('SELECT content FROM notes').all()).toEqual([{ content: 'written' }]);

    const third = open(path);
    expect(third.notices).toEqual([]);
    for (const db of [first, second.db, third.db]) db.close();
  });

  it('given with --db in a shared folder: tightens the file, never the folder it did not create', () => {
    const shared = join(home, 'shared');
    mkdirSync(shared);
    chmodSync(shared, 0o777);
    const path = join(shared, 'team.db');
    writeFileSync(path, '');
    chmodSync(path, 0o664);

    const { db, notices } = open(path);
    expect(mode(shared)).toBe(0o777);
    expect(mode(path)).toBe(0o600);
    expect(notices).toEqual([`Tightened permissions of ${path} to 0600: it holds your chats.`]);
    db.close();
  });

  it.skipIf(!isRoot)('as root: mode bits still apply, and another user’s file is not changed', () => {
    // CI runs as root, which can read anything: the modes are what protects the files from others.
    const folder = join(home, 'agent');
    const path = join(folder, 'agent.db');
    open(path).db.close();
    expect([mode(folder), mode(path)]).toEqual([0o700, 0o600]);

    const theirs = join(home, 'theirs.db');
    writeFileSync(theirs, '');
    chmodSync(theirs, 0o644);
    chownSync(theirs, 65534, 65534);
    const { db, notices } = open(theirs);
    expect(mode(theirs)).toBe(0o644);
    expect(notices).toEqual([]);
    db.close();
  });
});

describe('agent on the command line', () => {
  it('says on stderr once that it tightened the data folder, and keeps stdout clean', async () => {
    const data = mkdtempSync(join(tmpdir(), 'agent-xdg-'));
    const folder = join(data, 'agent');
    mkdirSync(folder);
    chmodSync(folder, 0o755);
    const env = { XDG_DATA_HOME: data };

    const first = await runCli(['cost', '--json'], { env });
    expect(first.code).toBe(0);
    expect(first.stderr).toBe(`agent: Tightened permissions of ${folder} to 0700: it holds your chats.\n`);
    expect(JSON.parse(first.stdout).totals.calls).toBe(0);
    expect(mode(folder)).toBe(0o700);
    expect(mode(join(folder, 'agent.db'))).toBe(0o600);

    const second = await runCli(['cost'], { env });
    expect(second).toMatchObject({ code: 0, stderr: '' });
  });
});
