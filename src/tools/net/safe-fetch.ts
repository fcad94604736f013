import { lookup as dnsLookup } from 'node:dns/promises';
import { isIPv4 } from 'node:net';
import zlib from 'node:zlib';
import { Agent, request } from 'undici';
import { ToolError } from '../tool.js';
import { classifyAddress, classifyHostname, isAllowedHost, parseAllowHosts } from './address-policy.js';

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
  maxBytes?: number;
  maxRedirects?: number;
  connectTimeoutMs?: number;
  totalTimeoutMs?: number;
}

export interface Fetched {
  url: string;
  status: number;
  contentType: string;
  body: Buffer;
  /** The body was longer than maxBytes; reading stopped there. */
  truncated: boolean;
}

const defaultResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/** Refuses a URL by its form: scheme, credentials, and names or IP literals that are never public. */
export function checkUrl(url: URL, allow: Set<string>): void {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ToolError(`Only http and https URLs can be read, not ${url.protocol}`);
  }
  if (url.username || url.password)
    throw new ToolError('URLs with credentials (user:password@) are not fetched.');
  if (isAllowedHost(allow, url)) return;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const byName = classifyHostname(host);
  if (byName) throw new ToolError(`Refused: ${url.hostname} is ${byName}.`);
  // IP literals never reach the DNS hook, so they are judged here (WHATWG URL has already turned
  // 2130706433, 0x7f000001 and 127.1 into dotted form).
  if (isIPv4(host) || host.includes(':')) {
    const why = classifyAddress(host);
    if (why) throw new ToolError(`Refused: ${url.hostname} is a non-public address (${why}).`);
  }
}

/**
 * A dispatcher whose DNS hook checks every address a name resolves to and connects only to those it
 * checked, so a name that resolves to a private address (DNS rebinding included) is refused at connect time.
 */
function guardedAgent(
  resolver: Resolver,
  checked: boolean,
  connectTimeoutMs: number,
  onRefused: (why: string) => void,
): Agent {
  return new Agent({
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

async function readCapped(body: AsyncIterable<Buffer> & { destroy(): void }, maxBytes: number) {
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  for await (const chunk of body) {
    const room = maxBytes - size;
    if (chunk.length >= room) {
      chunks.push(chunk.subarray(0, room));
      size += room;
      truncated = chunk.length > room;
      break;
    }
    chunks.push(chunk);
    size += chunk.length;
  }
  if (truncated || size >= maxBytes) body.destroy(); // stop reading: the rest is never downloaded
  return { body: Buffer.concat(chunks), truncated };
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
  if (!create) throw new ToolError(`The page uses a content encoding read_url cannot read (${encoding}).`);
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
    if (size === 0) throw new ToolError(`The page's ${encoding} body could not be decompressed.`);
  } finally {
    stream.destroy();
  }
  return Buffer.concat(chunks).subarray(0, maxBytes);
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
    throw new ToolError(`"${input}" is not a valid URL.`);
  }
  /** The user's cancellation stays one; our own verdicts keep their words; the rest says what failed. */
  const failure = (error: unknown, message: string): unknown => {
    if (o.signal?.aborted || error instanceof ToolError) return error;
    if (timeout.aborted) return new ToolError(`Timed out reading ${url.href}.`);
    return new ToolError(message);
  };
  for (let hop = 0; ; hop++) {
    checkUrl(url, allow);
    let refused: string | undefined;
    const agent = guardedAgent(resolver, !isAllowedHost(allow, url), o.connectTimeoutMs ?? 10_000, (why) => {
      refused = why;
    });
    try {
      let response: Awaited<ReturnType<typeof request>>;
      try {
        response = await request(url, {
          dispatcher: agent,
          method: 'GET',
          signal,
          headers: {
            'user-agent': 'Mozilla/5.0 (compatible; agent-research/0.1)',
            accept: 'text/html,application/xhtml+xml,text/plain;q=0.9,application/json;q=0.8,*/*;q=0.5',
            'accept-encoding': 'identity',
          },
        });
      } catch (error) {
        if (refused) throw new ToolError(refused);
        const cause = (error as { cause?: Error }).cause?.message ?? (error as Error).message;
        throw failure(error, `Could not connect to ${url.host}: ${cause}.`);
      }
      const { statusCode, headers, body } = response;
      if (statusCode >= 300 && statusCode < 400 && headers.location) {
        await body.dump();
        if (hop >= maxRedirects)
          throw new ToolError(`Too many redirects (more than ${maxRedirects}) from ${input}.`);
        url = new URL(String(headers.location), url);
        continue;
      }
      const contentType = String(headers['content-type'] ?? '');
      try {
        const maxBytes = o.maxBytes ?? 512 * 1024;
        const { body: raw, truncated } = await readCapped(body, maxBytes);
        const encoding = String(headers['content-encoding'] ?? 'identity').toLowerCase();
        const bytes = await decodeBody(raw, encoding, maxBytes);
        return {
          url: url.href,
          status: statusCode,
          contentType,
          body: bytes,
          truncated: truncated || bytes.length >= maxBytes,
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
