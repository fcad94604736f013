import { formatUsd } from '../money.js';
// Colour only for a terminal that wants it: https://no-color.org and FORCE_COLOR are honoured.

export function colorEnabled(stream: NodeJS.WriteStream, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.NO_COLOR) return false;
  if (env.FORCE_COLOR && env.FORCE_COLOR !== '0') return true;
  return Boolean(stream.isTTY) && env.TERM !== 'dumb';
}

export interface Style {
  dim(s: string): string;
  bold(s: string): string;
  red(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
  cyan(s: string): string;
}

const wrap = (open: number, close: number) => (s: string) => `\u001b[${open}m${s}\u001b[${close}m`;
const plain = (s: string) => s;

export function styleFor(stream: NodeJS.WriteStream): Style {
  if (!colorEnabled(stream))
    return { dim: plain, bold: plain, red: plain, green: plain, yellow: plain, cyan: plain };
  return {
    dim: wrap(2, 22),
    bold: wrap(1, 22),
    red: wrap(31, 39),
    green: wrap(32, 39),
    yellow: wrap(33, 39),
    cyan: wrap(36, 39),
  };
}

/** A plain text table: first column left-aligned, the rest right-aligned. */
export function table(header: string[], rows: string[][], footer?: string[]): string {
  const all = footer ? [header, ...rows, footer] : [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) =>
    r
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  const out = [line(header), rule, ...rows.map(line)];
  if (footer) out.push(rule, line(footer));
  return out.join('\n');
}

export const formatInt = (n: number): string => n.toLocaleString('en-US');

/** Dollars: one rule for every figure shown (report/format.ts). */
export { formatUsd };

/** A ledger total's dollars: calls with no known price make it "unknown", or a known part "+ unknown". */
export function formatCost(t: { calls: number; costUsd: number | null; unpricedCalls: number }): string {
  if (t.unpricedCalls === 0) return formatUsd(t.costUsd ?? 0);
  if (t.unpricedCalls === t.calls) return 'unknown';
  return `${formatUsd(t.costUsd)} + unknown`;
}

/** `2026-05-01 14:02` in local time. */
export function formatWhen(iso: string): string {
  const d = new Date(iso);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

// CSI and OSC sequences, other escapes, and C0/C1 control characters except tab and newline.
const CONTROL =
  /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-_]?|[\x00-\x08\x0b-\x1f\x7f\x80-\x9f]/g;

/**
 * Text that came from a model, a web page, a tool or a saved chat, made safe to print: escape sequences
 * in it could set the window title, write the clipboard (OSC 52) or clear the screen. Our own styling is
 * added after this, never passed through it.
 */
export function clean(text: string): string {
  return text.replace(CONTROL, '');
}

/** An escape sequence that is whole: CSI, OSC ended by BEL or ST, or a two-character escape. */
const WHOLE = /^\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\^_])/;

/**
 * `clean` for streamed text, where one escape sequence may arrive split across two chunks: an unfinished
 * one is held back until the next chunk completes it (at most 256 characters), then dropped whole.
 */
export function streamCleaner(): (chunk: string) => string {
  let carry = '';
  return (chunk) => {
    let text = carry + chunk;
    carry = '';
    const esc = text.lastIndexOf('\x1b');
    if (esc >= 0 && text.length - esc < 256 && !WHOLE.test(text.slice(esc))) {
      carry = text.slice(esc);
      text = text.slice(0, esc);
    }
    return clean(text);
  };
}
