import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/errors.js';
import { openPostgres } from '../../../src/store/postgres/open.js';
import { startTestDatabase, type TestDatabase } from '../../support/pg.js';

// Each way of failing to connect is one line saying what to check, exit 2, and never the password.
// PGlite accepts any password and database, so the server's refusals come from a scripted server that
// answers the startup message as PostgreSQL does: an ErrorResponse with the SQLSTATE code.

/** A server that refuses TLS ('N') and answers every startup message with this FATAL error. */
function refusingServer(code: string, message: string): Promise<{ url: string; server: Server }> {
  const server = createServer((socket) => {
    socket.once('data', function onData(data: Buffer) {
      // SSLRequest: length 8, code 80877103.
      if (data.length === 8 && data.readInt32BE(4) === 80877103) {
        socket.write('N');
        socket.once('data', onData);
        return;
      }
      const fields = Buffer.concat([
        ...[
          ['S', 'FATAL'],
          ['V', 'FATAL'],
          ['C', code],
          ['M', message],
        ].map(([k, v]) => Buffer.from(`${k}${v}\0`)),
        Buffer.from([0]),
      ]);
      const head = Buffer.alloc(5);
      head.write('E');
      head.writeInt32BE(fields.length + 4, 1);
      socket.end(Buffer.concat([head, fields]));
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      resolve({ url: `postgres://alice:s3cret-pw@127.0.0.1:${port}/teamdb`, server });
    }),
  );
}

async function failure(url: string, env: NodeJS.ProcessEnv = {}): Promise<Error> {
  const error = await openPostgres(url, { env: { ...env, AGENT_USER: 'tester' } }).then(
    async (store) => {
      await store.close();
      return undefined;
    },
    (e: unknown) => e as Error,
  );
  expect(error).toBeInstanceOf(ConfigError);
  expect((error as ConfigError).exitCode).toBe(2);
  expect(error!.message).not.toContain('s3cret-pw');
  expect(error!.message.split('\n')).toHaveLength(1);
  return error!;
}

let db: TestDatabase;
const servers: Server[] = [];
beforeAll(async () => {
  db = await startTestDatabase();
});
afterAll(async () => {
  for (const s of servers) s.close();
  await db?.stop();
});

async function scripted(code: string, message: string): Promise<string> {
  const { url, server } = await refusingServer(code, message);
  servers.push(server);
  return url;
}

describe('failing to connect to PostgreSQL', () => {
  it('nothing listening: says where, and to check the server and the URL', async () => {
    const { url, server } = await refusingServer('0', '');
    await new Promise((r) => server.close(r));
    const error = await failure(url);
    expect(error.message).toMatch(
      /^PostgreSQL \(postgres:\/\/alice@127\.0\.0\.1:\d+\/teamdb\): nothing is listening at 127\.0\.0\.1:\d+; is the server running/,
    );
  });

  it('wrong password (28P01): check the password in the URL or PGPASSWORD', async () => {
    const url = await scripted('28P01', 'password authentication failed for user "alice"');
    const error = await failure(url);
    expect(error.message).toContain(
      'the server refused the password of user "alice"; check the password in the URL or PGPASSWORD.',
    );
  });

  it('missing database (3D000): create it or fix its name', async () => {
    const url = await scripted('3D000', 'database "teamdb" does not exist');
    expect((await failure(url)).message).toMatch(
      /the database "teamdb" does not exist on 127\.0\.0\.1:\d+; create it \(createdb teamdb\)/,
    );
  });

  it('TLS required by the server: add sslmode', async () => {
    const url = await scripted(
      '28000',
      'no pg_hba.conf entry for host "127.0.0.1", user "alice", database "teamdb", no encryption',
    );
    expect((await failure(url)).message).toContain(
      'the server accepts this connection only over TLS; add sslmode=require',
    );
  });

  it('TLS refused by the server while sslmode=require asks for it', async () => {
    const url = await scripted('0', '');
    const error = await failure(`${url}?sslmode=require`);
    expect(error.message).toContain(
      'the server does not accept TLS connections, but sslmode=require asks for one',
    );
  });

  it('the host name does not resolve', async () => {
    const error = await failure('postgres://alice:s3cret-pw@no-such-host.invalid:5432/teamdb');
    expect(error.message).toContain('the host name no-such-host.invalid is not known');
  });

  it('PG* variables fill in what the URL leaves out', async () => {
    const url = new URL(db.url);
    // The URL names only the scheme; host, port, user, password and database come from the variables.
    const store = await openPostgres('postgres://', {
      env: {
        PGHOST: url.hostname,
        PGPORT: url.port,
        PGUSER: decodeURIComponent(url.username),
        PGPASSWORD: decodeURIComponent(url.password),
        PGDATABASE: url.pathname.slice(1),
        AGENT_USER: 'tester',
      },
    });
    try {
      expect(store.location).toBe('postgres://');
      expect((await store.status()).schemaVersion).toBe(21);
    } finally {
      await store.close();
    }
  });

  it('shows the URL without its password', async () => {
    const store = await openPostgres(db.url, { env: { AGENT_USER: 'tester' } });
    try {
      expect(store.location).not.toContain(new URL(db.url).password || '\0');
      expect(store.location).toContain(new URL(db.url).host);
    } finally {
      await store.close();
    }
  });

  it.skipIf(!process.env.AGENT_TEST_DATABASE_URL)(
    'a real server: wrong password and missing database',
    async () => {
      const url = new URL(db.url);
      url.password = 's3cret-pw';
      expect((await failure(url.toString())).message).toContain('refused the password');
      const missing = new URL(db.url);
      missing.pathname = '/agent_no_such_db';
      expect((await failure(missing.toString())).message).toContain('"agent_no_such_db" does not exist');
    },
  );
});
