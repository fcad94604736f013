import { lookup as dnsLookup } from 'node:dns/promises';
import { createRequire } from 'node:module';
import { isIPv4 } from 'node:net';
import zlib from 'node:zlib';
import type { Agent } from 'undici';
import { WebError } from '../errors.js';
import { classifyAddress, classifyHostname, isAllowedHost, parseAllowHosts } from './address-policy.js';

let httpClient: Promise<typeof import('undici')> | undefined;
/**
 * undici, loaded once: with the first fetch, not with the chat's tools (it is a tenth of a second of
 * start-up), or earlier by a caller that knows pages will be read soon (research, while the plan is made).
 * require(), not import(): undici is CommonJS, and the bundle's files have no import() (see
 * src/boot/code-cache.ts).
 */
export function loadHttpClient(): Promise<typeof import('undici')> {
  httpClient ??= Promise.resolve().then(() => createRequire(import.meta.url)('undici'));
  return httpClient;
}

export interface ResolvedAddress {
  address: string;
  family: number;
}

export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export interface SafeFetchOptions {
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  /** DNS; stubbed in tests. */
  resolver?: Resolver;
  /** The byte cap for a body (default 512 KB); a longer one is cut there and marked `truncated`. */
  maxBytes?: number;
  /** Chooses another cap for a response once its type, final URL and first bytes are known. */
  limitFor?: (response: ResponseStart) => BodyLimit | undefined;
  maxRedirects?: number;
  /** Request headers to add (a revalidation's If-None-Match / If-Modified-Since), sent on every hop. */
  headers?: Record<string, string>;
  connectTimeoutMs?: number;
  totalTimeoutMs?: number;
}

/** What is known of a response before its body is read to the end. */
export interface ResponseStart {
  url: URL;
  contentType: string;
  /** Up to the first KB or so of the body, decompressed when the server compressed it. */
  firstBytes: Buffer;
}

export interface BodyLimit {
  maxBytes: number;
  /**
   * Set for bodies that are useless cut short (a PDF): one over maxBytes is refused, named by this
   * word ("PDF"), instead of being cut.
   */
  wholeOnly?: string;
}

export const DEFAULT_MAX_BYTES = 512 * 1024;
const SNIFF_BYTES = 1024;

export interface Fetched {
  url: string;
  status: number;
  contentType: string;
  body: Buffer;
  /** The body was longer than maxBytes; reading stopped there. */
  truncated: boolean;
  /** The final response's headers, names in lower case, repeated ones joined with ", ". */
  headers: Record<string, string>;
}

/** undici's header values (a string, or an array for a repeated header) as one string each. */
function flatHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers))
    if (value !== undefined) flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  return flat;
}

const defaultResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/** Refuses a URL by its form: scheme, credentials, and names or IP literals that are never public. */
export function checkUrl(url: URL, allow: Set<string>): void {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new WebError(`Only http and https URLs can be read, not ${url.protocol}`);
  }
  if (url.username || url.password)
    throw new WebError('URLs with credentials (user:password@) are not fetched.');
  if (isAllowedHost(allow, url)) return;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const byName = classifyHostname(host);
  if (byName) throw new WebError(`Refused: ${url.hostname} is ${byName}.`);
  // IP literals never reach the DNS hook, so they are judged here (WHATWG URL has already turned
  // 2130706433, 0x7f000001 and 127.1 into dotted form).
  if (isIPv4(host) || host.includes(':')) {
    const why = classifyAddress(host);
    if (why) throw new WebError(`Refused: ${url.hostname} is a non-public address (${why}).`);
  }
}

/**
 * A dispatcher whose DNS hook checks every address a name resolves to and connects only to those it
 * checked, so a name that resolves to a private address (DNS rebinding included) is refused at connect time.
 */
function guardedAgent(
  undici: typeof import('undici'),
  resolver: Resolver,
  checked: boolean,
  connectTimeoutMs: number,
  onRefused: (why: string) => void,
): Agent {
  return new undici.Agent({
    connect: {
      timeout: connectTimeoutMs,
      lookup: (hostname, options, callback) => {
        resolver(hostname)
          .then((addresses) => {
            if (addresses.length === 0) throw new Error(`${hostname} did not resolve`);
            if (checked) {
              for (const a of addresses) {
                const why = classifyAddress(a.address);
                if (why) {
                  const message = `Refused: ${hostname} resolves to ${a.address}, a non-public address (${why}).`;
                  onRefused(message);
                  throw new Error(message);
                }
              }
            }
            if ((options as { all?: boolean }).all)
              (callback as (e: null, a: ResolvedAddress[]) => void)(null, addresses);
            else callback(null, addresses[0]!.address, addresses[0]!.family);
          })
          .catch((error: Error) => callback(error as NodeJS.ErrnoException, '', 0));
      },
    },
  });
}

// SYNC_FLUSH: a body cut at the byte cap still inflates as far as it goes instead of failing.
const gunzip = () => zlib.createGunzip({ finishFlush: zlib.constants.Z_SYNC_FLUSH });
const DECODERS: Record<string, () => zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress> = {
  gzip: gunzip,
  'x-gzip': gunzip,
  deflate: () => zlib.createInflate({ finishFlush: zlib.constants.Z_SYNC_FLUSH }),
  br: () => zlib.createBrotliDecompress({ finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH }),
};

/**
 * We ask for `identity`, but some servers compress anyway. What was read is inflated up to the same cap:
 * a truncated stream inflates as far as it goes, and a compression bomb stops at the cap.
 */
export async function decodeBody(raw: Buffer, encoding: string, maxBytes: number): Promise<Buffer> {
  if (encoding === 'identity' || encoding === '') return raw;
  const create = DECODERS[encoding];
  if (!create) throw new WebError(`The page uses a content encoding read_url cannot read (${encoding}).`);
  const stream = create();
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    stream.end(raw);
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= maxBytes) break;
    }
  } catch {
    if (size === 0) throw new WebError(`The page's ${encoding} body could not be decompressed.`);
  } finally {
    stream.destroy();
  }
  return Buffer.concat(chunks).subarray(0, maxBytes);
}

/** A byte count as people say it: 10 MB, 512 KB, 900 bytes. */
export function byteSize(n: number): string {
  if (n >= 1024 * 1024) return `${Number((n / 1024 / 1024).toFixed(1))} MB`;
  if (n >= 1024) return `${Number((n / 1024).toFixed(1))} KB`;
  return `${n} bytes`;
}

type Body = AsyncIterable<Buffer> & { destroy(): void };

/**
 * Reads the first bytes, lets the caller pick the cap from them, then reads up to that cap and stops
 * (the rest is never downloaded). A body that must be whole and is over its cap is refused instead.
 */
async function readBody(
  body: Body,
  start: Omit<ResponseStart, 'firstBytes'>,
  encoding: string,
  declaredLength: number | undefined,
  choose: (response: ResponseStart) => BodyLimit,
): Promise<{ body: Buffer; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  let ended = false;
  const iterator = body[Symbol.asyncIterator]();
  const next = async () => {
    const r = await iterator.next();
    if (r.done) ended = true;
    else {
      chunks.push(r.value);
      size += r.value.length;
    }
  };
  try {
    while (!ended && size < SNIFF_BYTES) await next();
    const head = Buffer.concat(chunks);
    const firstBytes = await decodeBody(head, encoding, SNIFF_BYTES).catch(() => Buffer.alloc(0));
    const limit = choose({ ...start, firstBytes });
    const tooLarge = (known?: number) => {
      // Exact byte counts: a rounded size can read as equal to the limit it is over.
      const exact = (n: number) => `${n.toLocaleString('en-US')} bytes`;
      const what = `${start.url.href} is a ${limit.wholeOnly}`;
      const cap = `${byteSize(limit.maxBytes)} (${exact(limit.maxBytes)})`;
      const over = known === undefined ? `${what} larger than` : `${what} of ${exact(known)}, over`;
      return new WebError(`${over} the ${cap} limit for a ${limit.wholeOnly}; it was not read.`);
    };
    const identity = encoding === 'identity' || encoding === '';
    if (limit.wholeOnly && identity && declaredLength !== undefined && declaredLength > limit.maxBytes)
      throw tooLarge(declaredLength);
    // One byte past the cap tells a body of exactly maxBytes from a longer one.
    while (!ended && size <= limit.maxBytes) await next();
    const raw = Buffer.concat(chunks);
    const cut = raw.length > limit.maxBytes;
    if (limit.wholeOnly && cut) throw tooLarge();
    const bytes = await decodeBody(raw.subarray(0, limit.maxBytes), encoding, limit.maxBytes + 1);
    if (bytes.length > limit.maxBytes) {
      if (limit.wholeOnly) throw tooLarge();
      return { body: bytes.subarray(0, limit.maxBytes), truncated: true };
    }
    return { body: bytes, truncated: cut };
  } finally {
    if (!ended) body.destroy();
  }
}

/** GET with every hop checked, redirects followed by hand, timeouts, and a cap on the bytes read. */
export async function safeFetch(input: string, o: SafeFetchOptions = {}): Promise<Fetched> {
  const allow = parseAllowHosts(o.env?.AGENT_ALLOW_HOSTS);
  const resolver = o.resolver ?? defaultResolver;
  const maxRedirects = o.maxRedirects ?? 5;
  const timeout = AbortSignal.timeout(o.totalTimeoutMs ?? 20_000);
  const signal = o.signal ? AbortSignal.any([o.signal, timeout]) : timeout;
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new WebError(`"${input}" is not a valid URL.`);
  }
  /** The user's cancellation stays one; our own verdicts keep their words; the rest says what failed. */
  const failure = (error: unknown, message: string): unknown => {
    if (o.signal?.aborted || error instanceof WebError) return error;
    if (timeout.aborted) return new WebError(`Timed out reading ${url.href}.`);
    return new WebError(message);
  };
  const undici = await loadHttpClient();
  for (let hop = 0; ; hop++) {
    checkUrl(url, allow);
    let refused: string | undefined;
    const agent = guardedAgent(
      undici,
      resolver,
      !isAllowedHost(allow, url),
      o.connectTimeoutMs ?? 10_000,
      (why) => {
        refused = why;
      },
    );
    try {
      let response: Awaited<ReturnType<typeof undici.request>>;
      try {
        response = await undici.request(url, {
          dispatcher: agent,
          method: 'GET',
          signal,
          headers: {
            'user-agent': 'Mozilla/5.0 (compatible; agent-research/0.1)',
            accept:
              'text/html,application/xhtml+xml,application/pdf;q=0.9,text/plain;q=0.9,application/json;q=0.8,*/*;q=0.5',
            'accept-encoding': 'identity',
            ...o.headers,
          },
        });
      } catch (error) {
        if (refused) throw new WebError(refused);
        const cause = (error as { cause?: Error }).cause?.message ?? (error as Error).message;
        throw failure(error, `Could not connect to ${url.host}: ${cause}.`);
      }
      const { statusCode, headers, body } = response;
      if (statusCode >= 300 && statusCode < 400 && headers.location) {
        await body.dump();
        if (hop >= maxRedirects)
          throw new WebError(`Too many redirects (more than ${maxRedirects}) from ${input}.`);
        url = new URL(String(headers.location), url);
        continue;
      }
      const contentType = String(headers['content-type'] ?? '');
      const encoding = String(headers['content-encoding'] ?? 'identity').toLowerCase();
      const length = Number(headers['content-length']);
      const fallback: BodyLimit = { maxBytes: o.maxBytes ?? DEFAULT_MAX_BYTES };
      try {
        const read = await readBody(
          body,
          { url, contentType },
          encoding,
          Number.isFinite(length) ? length : undefined,
          (start) => o.limitFor?.(start) ?? fallback,
        );
        return {
          url: url.href,
          status: statusCode,
          contentType,
          body: read.body,
          truncated: read.truncated,
          headers: flatHeaders(headers),
        };
      } catch (error) {
        throw failure(
          error,
          `The connection to ${url.host} failed while reading: ${(error as Error).message}.`,
        );
      }
    } finally {
      agent.close().catch(() => {});
    }
  }
}
