import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import { ToolError } from '../tools/tool.js';

/** Enough for a long document; more would crowd the conversation out of the model's context. */
export const MAX_RESULT_CHARS = 40_000;

/** Decoded size of base64 data, for a one-line summary. */
function base64Bytes(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} bytes`;
  if (n < 1024 * 1024) return `${Math.round(n / 1024)} KB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MB`;
}

const media = (type: string, mimeType: unknown, data: string) =>
  `[${type}: ${typeof mimeType === 'string' ? mimeType : 'unknown type'}, ${formatBytes(base64Bytes(data))}]`;

const blobResource = (r: { uri?: unknown; mimeType?: unknown; blob: string }) =>
  `[resource: ${String(r.uri ?? 'unnamed')}${typeof r.mimeType === 'string' ? `, ${r.mimeType}` : ''}, ${formatBytes(base64Bytes(r.blob))}]`;

/** Long enough and of base64's alphabet alone: bytes, not words. */
const BASE64 = /^[A-Za-z0-9+/_-]{256,}={0,2}$/;
const DATA_URL = /^data:([^;,]*)(?:;[^,]*)?;base64,/;

/**
 * A copy of structured content with every piece of binary data (an image or audio block, a blob
 * resource, a data: URL, a long base64 string) replaced by its one-line placeholder, so no base64
 * reaches the model as text.
 */
export function withoutBinary(value: unknown): unknown {
  if (typeof value === 'string') {
    const url = DATA_URL.exec(value);
    if (url) return media('data', url[1] || undefined, value.slice(url[0].length));
    return BASE64.test(value) ? `[binary data, ${formatBytes(base64Bytes(value))}]` : value;
  }
  if (Array.isArray(value)) return value.map(withoutBinary);
  if (typeof value !== 'object' || value === null) return value;
  const o = value as Record<string, unknown>;
  if ((o.type === 'image' || o.type === 'audio') && typeof o.data === 'string')
    return media(o.type, o.mimeType, o.data);
  if (typeof o.blob === 'string') return blobResource(o as { blob: string });
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, withoutBinary(v)]));
}

/** Text as it is; anything else as one line saying what it was, so nothing is dropped silently. */
function describeBlock(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
    case 'audio':
      return media(block.type, block.mimeType, block.data);
    case 'resource_link': {
      const label = block.title ?? block.name;
      const details = [block.mimeType, block.description].filter(Boolean).join(', ');
      return `[resource link: ${label} ${block.uri}${details ? ` (${details})` : ''}]`;
    }
    case 'resource': {
      const r = block.resource;
      // An embedded text resource is content the server meant the model to read.
      if ('text' in r && typeof r.text === 'string')
        return `[resource: ${r.uri}${r.mimeType ? `, ${r.mimeType}` : ''}]\n${r.text}`;
      if ('blob' in r && typeof r.blob === 'string') return blobResource(r);
      return `[resource: ${r.uri}${r.mimeType ? `, ${r.mimeType}` : ''}]`;
    }
    default:
      return `[${(block as { type: string }).type} content]`;
  }
}

function capped(text: string): string {
  if (text.length <= MAX_RESULT_CHARS) return text;
  return `${text.slice(0, MAX_RESULT_CHARS)}\n[… cut: the result was ${text.length.toLocaleString('en-US')} characters; the first ${MAX_RESULT_CHARS.toLocaleString('en-US')} are shown]`;
}

/**
 * The result text for the model. A result the server marks `isError` throws a ToolError, so the loop
 * sends it back as an error result. Structured content is shown as JSON when there is no text, with
 * binary data in it replaced by placeholders as in content.
 */
export function formatToolResult(result: CallToolResult): string {
  const blocks = (result.content ?? []) as ContentBlock[];
  const hasText = blocks.some((b) => b.type === 'text' && b.text.trim() !== '');
  const parts = blocks.map(describeBlock).filter((p) => p !== '');
  if (!hasText && result.structuredContent !== undefined)
    parts.push(JSON.stringify(withoutBinary(result.structuredContent), null, 2));
  const text = capped(parts.join('\n'));
  if (result.isError) throw new ToolError(text || 'the tool reported an error without saying why');
  return text || '(the tool returned no content)';
}
