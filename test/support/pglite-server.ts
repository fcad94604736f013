import { createServer, type Server, type Socket } from 'node:net';
import type { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketHandler, type PGLiteSocketHandlerOptions } from '@electric-sql/pglite-socket';

// PGlite served to many connections at once, for tests. PGlite is one backend (one session), so
// connections must take turns. pglite-socket's own server (0.2.17, and its main branch) queues each
// protocol *message* separately: a query with parameters is five messages (Parse, Bind, Describe,
// Execute, Sync), and another connection's Parse between them replaces the one unnamed statement
// ("unnamed prepared statement does not exist"). This queue keeps pglite-socket's connection handling
// (framing, SSLRequest, the startup message) and takes turns by *unit*: a connection's messages up to
// its Sync (or a simple Query) run together, and while a unit leaves a transaction open, only that
// connection's units run, until it commits or rolls back. Session state (SET ROLE, settings) stays
// shared by every connection: PGlite has one session.

type Queue = PGLiteSocketHandlerOptions['queryQueue'];

interface Unit {
  handler: number;
  data: Uint8Array;
  onData(data: Uint8Array): void;
  resolve(bytes: number): void;
  reject(error: Error): void;
}

/** Message types that end a unit: Sync, Query, Terminate, CopyDone, CopyFail, a password. */
const ENDS = new Set(['S', 'Q', 'X', 'c', 'f', 'p'].map((c) => c.charCodeAt(0)));

class UnitQueue {
  private readonly pending = new Map<number, Uint8Array[]>();
  private queue: Unit[] = [];
  private running = false;
  /** The connection whose transaction is open; only its units run meanwhile. */
  private owner: number | null = null;

  constructor(private readonly db: PGlite) {}

  enqueue(handler: number, message: Uint8Array, onData: (data: Uint8Array) => void): Promise<number> {
    const parts = this.pending.get(handler) ?? [];
    parts.push(message);
    // A startup message has no type byte: it starts with its length, whose first byte is 0.
    if (message[0] !== 0 && !ENDS.has(message[0]!)) {
      this.pending.set(handler, parts);
      return Promise.resolve(0);
    }
    this.pending.delete(handler);
    const data = Buffer.concat(parts);
    return new Promise((resolve, reject) => {
      this.queue.push({ handler, data, onData, resolve, reject });
      void this.run();
    });
  }

  private async run(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      for (;;) {
        const i = this.owner === null ? 0 : this.queue.findIndex((u) => u.handler === this.owner);
        if (i < 0 || i >= this.queue.length) break;
        const unit = this.queue.splice(i, 1)[0]!;
        let bytes = 0;
        try {
          await this.db.runExclusive(() =>
            this.db.execProtocolRawStream(unit.data, {
              onRawData: (data) => {
                bytes += data.length;
                unit.onData(data);
              },
            }),
          );
          unit.resolve(bytes);
        } catch (error) {
          unit.reject(error as Error);
        }
        this.owner = this.db.isInTransaction() ? unit.handler : null;
      }
    } finally {
      this.running = false;
    }
  }

  getQueueLength(): number {
    return this.queue.length;
  }

  clearQueueForHandler(handler: number): void {
    this.pending.delete(handler);
    for (const unit of this.queue.filter((u) => u.handler === handler))
      unit.reject(new Error('disconnected'));
    this.queue = this.queue.filter((u) => u.handler !== handler);
  }

  /** A connection that left with its transaction open: rolled back, and the others go on. */
  async clearTransactionIfNeeded(handler: number): Promise<void> {
    if (this.owner !== handler) return;
    if (this.db.isInTransaction()) await this.db.exec('ROLLBACK');
    this.owner = null;
    void this.run();
  }
}

/** Serves `db` on a loopback port; its URL's user, password and database are accepted whatever they are. */
export async function servePglite(
  db: PGlite,
): Promise<{ port: number; dropConnections(): void; stop(): Promise<void> }> {
  const queue = new UnitQueue(db) as unknown as Queue;
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    new PGLiteSocketHandler({ queryQueue: queue, closeOnDetach: true })
      .attach(socket)
      .catch(() => socket.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    /** Cuts every open connection, as a network failure or a server restart would. */
    dropConnections() {
      for (const s of sockets) s.destroy();
    },
    stop: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
