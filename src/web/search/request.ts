import type { z } from 'zod';
import { WebError } from '../errors.js';
import { oneLine } from './result.js';

// One HTTP round trip to a search service. Every way it can fail becomes one WebError line that names the
// service and, where the user can fix it, what to change.

export const SEARCH_TIMEOUT_MS = 15_000;

export interface BackendCall {
  /** The service's name as people know it, used in every message: "Brave", "Tavily", "SearXNG". */
  service: string;
  url: URL;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  /** A JSON request body. */
  body?: unknown;
  signal?: AbortSignal;
  /** The variable holding the key, named when the service refuses it (401/403). */
  keyVariable?: string;
  /** A service's own reading of a status, where it knows better than the generic one. */
  statusMessage?: (status: number) => string | undefined;
  /** Appended when the reply is not JSON: the likely cause for this service. */
  notJsonHint?: string;
}

/** Sends the request and returns the parsed JSON body of a 2xx answer. */
export async function requestJson(call: BackendCall): Promise<unknown> {
  const timeout = AbortSignal.timeout(SEARCH_TIMEOUT_MS);
  const signal = call.signal ? AbortSignal.any([call.signal, timeout]) : timeout;
  const failed = (error: unknown, reading: boolean): never => {
    // Ctrl-C is not a search failure: let the caller's cancellation through as it is.
    if (call.signal?.aborted) throw error;
    if (timeout.aborted) {
      throw new WebError(`${call.service} did not answer within ${SEARCH_TIMEOUT_MS / 1000} s.`);
    }
    if (reading) {
      throw new WebError(`The connection to ${call.service} broke while reading its reply: ${cause(error)}.`);
    }
    const where = `${call.url.origin}${call.url.pathname}`;
    throw new WebError(`Could not reach ${call.service} at ${where}: ${cause(error)}.`);
  };

  const headers: Record<string, string> = { Accept: 'application/json', ...call.headers };
  if (call.body !== undefined) headers['Content-Type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(call.url, {
      method: call.method ?? 'GET',
      headers,
      body: call.body === undefined ? undefined : JSON.stringify(call.body),
      signal,
    });
  } catch (error) {
    return failed(error, false);
  }
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    return failed(error, true);
  }
  if (!response.ok) throw new WebError(statusMessage(call, response, text));
  try {
    return JSON.parse(text);
  } catch {
    const type = response.headers.get('content-type')?.split(';')[0]?.trim() || 'no content type';
    const start = oneLine(text).slice(0, 60);
    const hint = call.notJsonHint ? `: ${call.notJsonHint}` : '';
    throw new WebError(
      `${call.service} answered with something that is not JSON (${type}, ${start ? `"${start}…"` : 'empty'})${hint}.`,
    );
  }
}

/** Parses a reply against the documented shape; a mismatch says where, in one line. */
export function parseReply<T>(schema: z.ZodType<T>, value: unknown, service: string): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
  throw new WebError(
    `${service} answered in a shape that is not its documented one (${where}${issue?.message ?? 'unreadable'}).`,
  );
}

function statusMessage(call: BackendCall, response: Response, text: string): string {
  const status = response.status;
  const own = call.statusMessage?.(status);
  if (own) return own;
  if ((status === 401 || status === 403) && call.keyVariable) {
    return `${call.service} refused the key (${status}): it is invalid or not allowed; check ${call.keyVariable}.`;
  }
  if (status === 429) {
    const retry = response.headers.get('retry-after')?.trim();
    const after = retry && /^\d+$/.test(retry) ? `, retry after ${retry} s` : '';
    return `${call.service} rate limit reached (429${after}): wait before searching again, or answer from what you have.`;
  }
  const detail = errorDetail(text);
  return `${call.service} search failed with HTTP ${status}${detail ? `: ${detail}` : ''}.`;
}

/** The human-readable part of an error body, in the shapes these services use; undefined when there is none. */
export function errorDetail(text: string): string | undefined {
  let found: unknown;
  try {
    const body = JSON.parse(text) as Record<string, unknown>;
    const nested = (v: unknown, key: string) =>
      v && typeof v === 'object' ? (v as Record<string, unknown>)[key] : undefined;
    // Tavily: {detail: {error}}; Brave: {error: {detail}}; FastAPI-style {detail}; others {error} / {message}.
    found = [
      nested(body.detail, 'error'),
      body.detail,
      nested(body.error, 'detail'),
      nested(body.error, 'message'),
      body.error,
      body.message,
    ].find((v) => typeof v === 'string' && v.trim());
  } catch {
    // A short plain-text body is its own detail; an HTML error page is not worth quoting.
    if (text.length < 300 && !/^\s*</.test(text)) found = text;
  }
  if (typeof found !== 'string' || !found.trim()) return undefined;
  const line = oneLine(found).replace(/\.$/, '');
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

function cause(error: unknown): string {
  // undici's "fetch failed" hides the useful part (ECONNREFUSED, ENOTFOUND …) in `cause`.
  const inner = (error as { cause?: unknown })?.cause;
  if (inner instanceof Error && inner.message) return inner.message;
  return error instanceof Error ? error.message : String(error);
}
