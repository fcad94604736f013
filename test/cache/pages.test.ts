import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { pageCache } from '../../src/cache/pages.js';
import type { Db } from '../../src/store/sqlite/open.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import { readPage } from '../../src/web/read.js';
import { tempDb } from '../support/cli.js';
import { sqliteStore } from '../support/stores.js';

// The page cache above safeFetch, against a loopback server that records every request it gets.

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
const servers: Server[] = [];

async function serve(handler: Handler) {
  const requests: { path: string; ifNoneMatch?: string; ifModifiedSince?: string }[] = [];
  const server = createServer((req, res) => {
    requests.push({
      path: req.url ?? '',
      ifNoneMatch: req.headers['if-none-match'],
      ifModifiedSince: req.headers['if-modified-since'],
    });
    handler(req, res);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  const base = `http://127.0.0.1:${port}`;
  return { base, requests, env: { AGENT_ALLOW_HOSTS: `127.0.0.1:${port}` } };
}

afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

const html = (title: string, words = 'The refund limit is $200 for support agents.') =>
  `<html><head><title>${title}</title></head><body><main><h1>${title}</h1><p>${words}</p></main></body></html>`;

const HOUR = 3_600_000;

/** A clock the test moves. */
function clock(start = Date.parse('2026-11-30T12:00:00Z')) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

function setup(db: Db, env: Record<string, string>, o: { maxAgeMs?: number; refresh?: boolean } = {}) {
  const time = clock();
  const cache = pageCache(new SqliteStore(db, 'tester').cache, {
    maxAgeMs: o.maxAgeMs ?? 24 * HOUR,
    refresh: o.refresh,
    env,
    now: time.now,
  });
  const read = (url: string, extra: { maxBytes?: number } = {}) =>
    readPage(url, { env, cache, maxBytes: extra.maxBytes });
  return { time, cache, read };
}

describe('the page cache', () => {
  it('serves a page within --max-age without a request, then revalidates it with its ETag; a 304 keeps the text', async () => {
    let version = 'v1';
    const s = await serve((req, res) => {
      if (req.headers['if-none-match'] === `"${version}"`) {
        res.writeHead(304, { etag: `"${version}"` }).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html', etag: `"${version}"` }).end(html(`Page ${version}`));
    });
    const store = await sqliteStore(':memory:');
    const db = store.db;
    const { time, read } = setup(db, s.env);

    expect((await read(`${s.base}/a`)).title).toBe('Page v1');
    time.advance(23 * HOUR);
    const hit = await read(`${s.base}/a#section`);
    expect(hit.title).toBe('Page v1');
    expect(hit.fetchedAt).toBe('2026-11-30T12:00:00.000Z');
    expect(s.requests).toHaveLength(1);

    time.advance(2 * HOUR);
    const again = await read(`${s.base}/a`);
    expect(again.title).toBe('Page v1');
    expect(again.text).toContain('$200');
    expect(s.requests).toHaveLength(2);
    expect(s.requests[1]).toMatchObject({ path: '/a', ifNoneMatch: '"v1"' });
    expect(again.fetchedAt).toBe('2026-12-01T13:00:00.000Z');
    expect(
      db.prepare('SELECT etag, last_modified AS lastModified, fetched_at AS at FROM page_cache').get(),
    ).toEqual({
      etag: '"v1"',
      lastModified: null,
      at: Date.parse('2026-12-01T13:00:00.000Z'),
    });

    // The 304 counted as a fetch: the page is fresh again for a day.
    time.advance(12 * HOUR);
    await read(`${s.base}/a`);
    expect(s.requests).toHaveLength(2);

    // A changed page answers 200 to the old ETag: the new text replaces the old.
    version = 'v2';
    time.advance(13 * HOUR);
    expect((await read(`${s.base}/a`)).title).toBe('Page v2');
    expect(s.requests[2]?.ifNoneMatch).toBe('"v1"');
    time.advance(HOUR);
    expect((await read(`${s.base}/a`)).title).toBe('Page v2');
    expect(s.requests).toHaveLength(3);
  });

  it('revalidates with If-Modified-Since when the page has only a Last-Modified date', async () => {
    const modified = 'Mon, 30 Nov 2026 08:00:00 GMT';
    const s = await serve((req, res) => {
      if (req.headers['if-modified-since'] === modified) {
        res.writeHead(304).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html', 'last-modified': modified }).end(html('Dated'));
    });
    const store = await sqliteStore(':memory:');
    const db = store.db;
    const { time, read } = setup(db, s.env);
    await read(`${s.base}/d`);
    expect(db.prepare('SELECT etag, last_modified FROM page_cache').get()).toEqual({
      etag: null,
      last_modified: modified,
    });
    time.advance(25 * HOUR);
    expect((await read(`${s.base}/d`)).title).toBe('Dated');
    expect(s.requests.map((r) => r.ifModifiedSince)).toEqual([undefined, modified]);
  });

  it('--max-age 0 asks every time; --refresh fetches in full without validators and stores the new page', async () => {
    let title = 'First';
    const s = await serve((req, res) => {
      if (req.headers['if-none-match'] === '"x"') return void res.writeHead(304, { etag: '"x"' }).end();
      res.writeHead(200, { 'content-type': 'text/html', etag: '"x"' }).end(html(title));
    });
    const store = await sqliteStore(':memory:');
    const db = store.db;
    await setup(db, s.env).read(`${s.base}/p`);
    await setup(db, s.env, { maxAgeMs: 0 }).read(`${s.base}/p`);
    expect(s.requests[1]?.ifNoneMatch).toBe('"x"');

    title = 'Second';
    expect((await setup(db, s.env, { refresh: true }).read(`${s.base}/p`)).title).toBe('Second');
    expect(s.requests[2]?.ifNoneMatch).toBeUndefined();
    expect((await setup(db, s.env).read(`${s.base}/p`)).title).toBe('Second');
    expect(s.requests).toHaveLength(3);
  });

  it.each([
    ['no-store', 'no-store'],
    ['private', 'private, max-age=3600'],
  ])('never stores a page marked %s', async (_name, cacheControl) => {
    const s = await serve((_req, res) =>
      res
        .writeHead(200, { 'content-type': 'text/html', etag: '"e"', 'cache-control': cacheControl })
        .end(html('Secret')),
    );
    const store = await sqliteStore(':memory:');
    const db = store.db;
    const { read } = setup(db, s.env);
    await read(`${s.base}/s`);
    await read(`${s.base}/s`);
    expect(s.requests).toHaveLength(2);
    expect(s.requests[1]?.ifNoneMatch).toBeUndefined();
    expect(db.prepare('SELECT count(*) FROM page_cache').pluck().get()).toBe(0);
  });

  it.each([
    ['Cache-Control: no-cache', { 'cache-control': 'no-cache' }],
    ['Pragma: no-cache', { pragma: 'no-cache' }],
  ])('asks about a page marked %s every time, and a 304 still saves the body', async (_name, marked) => {
    const s = await serve((req, res) => {
      if (req.headers['if-none-match'] === '"n"') return void res.writeHead(304, { etag: '"n"' }).end();
      res.writeHead(200, { 'content-type': 'text/html', etag: '"n"', ...marked }).end(html('Ask'));
    });
    const { read } = setup((await sqliteStore()).db, s.env);
    await read(`${s.base}/n`);
    expect((await read(`${s.base}/n`)).title).toBe('Ask');
    expect(s.requests.map((r) => r.ifNoneMatch)).toEqual([undefined, '"n"']);
  });

  it('does not store an error, or a body cut at the size cap', async () => {
    const s = await serve((req, res) => {
      if (req.url === '/missing')
        return void res.writeHead(404, { 'content-type': 'text/html' }).end(html('Gone'));
      res.writeHead(200, { 'content-type': 'text/html' }).end(html('Long', 'word '.repeat(5000)));
    });
    const store = await sqliteStore(':memory:');
    const db = store.db;
    const { read } = setup(db, s.env);
    await expect(read(`${s.base}/missing`)).rejects.toThrow(/HTTP 404/);
    const cut = await read(`${s.base}/long`, { maxBytes: 2000 });
    expect(cut.title).toBe('Long');
    await read(`${s.base}/long`, { maxBytes: 2000 });
    expect(s.requests.map((r) => r.path)).toEqual(['/missing', '/long', '/long']);
    expect(db.prepare('SELECT count(*) FROM page_cache').pluck().get()).toBe(0);
    // Whole, the same page is stored.
    await read(`${s.base}/long`);
    expect(db.prepare('SELECT count(*) FROM page_cache').pluck().get()).toBe(1);
  });

  it('caches a redirect under the URL asked for, with the final URL as the page', async () => {
    const s = await serve((req, res) => {
      if (req.url === '/old') return void res.writeHead(301, { location: '/new' }).end();
      res.writeHead(200, { 'content-type': 'text/html', etag: '"r"' }).end(html('Moved'));
    });
    const store = await sqliteStore(':memory:');
    const db = store.db;
    const { read } = setup(db, s.env);
    expect((await read(`${s.base}/old`)).url).toBe(`${s.base}/new`);
    const cached = await read(`${s.base}/old`);
    expect(cached.url).toBe(`${s.base}/new`);
    expect(cached.title).toBe('Moved');
    expect(s.requests.map((r) => r.path)).toEqual(['/old', '/new']);
    expect(db.prepare('SELECT url, final_url AS finalUrl FROM page_cache').get()).toEqual({
      url: `${s.base}/old`,
      finalUrl: `${s.base}/new`,
    });
  });

  it('keeps the SSRF rules: a stored page is refused once its host is no longer allowed, fresh or stale', async () => {
    const s = await serve((req, res) => {
      if (req.headers['if-none-match']) return void res.writeHead(304, { etag: '"p"' }).end();
      res.writeHead(200, { 'content-type': 'text/html', etag: '"p"' }).end(html('Intranet'));
    });
    const store = await sqliteStore(':memory:');
    const db = store.db;
    await setup(db, s.env).read(`${s.base}/wiki`);
    // Without AGENT_ALLOW_HOSTS, 127.0.0.1 is a loopback address: refused, from the cache as from the web.
    const { time, read } = setup(db, {});
    await expect(read(`${s.base}/wiki`)).rejects.toThrow(/Refused: 127\.0\.0\.1 is a non-public address/);
    time.advance(25 * HOUR);
    await expect(read(`${s.base}/wiki`)).rejects.toThrow(/Refused/);
    expect(s.requests).toHaveLength(1);
  });

  it('refuses a revalidation that redirects to a private address', async () => {
    let moved = false;
    const s = await serve((_req, res) => {
      if (moved) return void res.writeHead(302, { location: 'http://10.0.0.1/admin' }).end();
      res.writeHead(200, { 'content-type': 'text/html', etag: '"q"' }).end(html('Public'));
    });
    const { time, read } = setup((await sqliteStore()).db, s.env);
    await read(`${s.base}/page`);
    moved = true;
    time.advance(25 * HOUR);
    await expect(read(`${s.base}/page`)).rejects.toThrow(/Refused: 10\.0\.0\.1 is a non-public address/);
  });

  it('reads a damaged row, or one made by another extractor version, as a miss', async () => {
    const s = await serve((_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html', etag: '"d"' }).end(html('Fresh copy')),
    );
    const store = await sqliteStore(':memory:');
    const db = store.db;
    const { read } = setup(db, s.env);
    await read(`${s.base}/x`);
    db.prepare('UPDATE page_bodies SET body = ?').run(Buffer.from('not zlib at all'));
    expect((await read(`${s.base}/x`)).title).toBe('Fresh copy');
    db.prepare('UPDATE page_cache SET extractor = extractor - 1').run();
    expect((await read(`${s.base}/x`)).title).toBe('Fresh copy');
    db.prepare('UPDATE page_cache SET policy = ?').run('{"not": "a policy"');
    await read(`${s.base}/x`);
    // Each miss is a full fetch (no validators: the stored copy could not be used), then stored again.
    expect(s.requests.map((r) => r.ifNoneMatch)).toEqual([undefined, undefined, undefined, undefined]);
    await read(`${s.base}/x`);
    expect(s.requests).toHaveLength(4);
  });

  it('a database that cannot be written still reads pages: the cache write is skipped', async () => {
    const s = await serve((_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html', etag: '"w"' }).end(html('Readable')),
    );
    const path = tempDb();
    await (await sqliteStore(path)).close();
    const readOnly = new Database(path, { readonly: true });
    const { read } = setup(readOnly, s.env);
    expect((await read(`${s.base}/r`)).title).toBe('Readable');
    expect((await read(`${s.base}/r`)).title).toBe('Readable');
    expect(s.requests).toHaveLength(2);
    // A database from before the caches existed has no tables for them: every lookup is a miss.
    const oldStore = await sqliteStore(':memory:');
    const old = oldStore.db;
    old.exec('DROP TABLE page_cache');
    expect((await setup(old, s.env).read(`${s.base}/r`)).title).toBe('Readable');
  });

  it('stores a text two URLs share once', async () => {
    const s = await serve((_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html' }).end(html('Same')),
    );
    const store = await sqliteStore(':memory:');
    const db = store.db;
    const { read } = setup(db, s.env);
    await read(`${s.base}/one`);
    await read(`${s.base}/two`);
    expect(db.prepare('SELECT count(*) FROM page_cache').pluck().get()).toBe(2);
    expect(db.prepare('SELECT count(*) FROM page_bodies').pluck().get()).toBe(1);
    db.prepare('DELETE FROM page_cache').run();
    expect(db.prepare('SELECT count(*) FROM page_bodies').pluck().get()).toBe(0);
  });
});
