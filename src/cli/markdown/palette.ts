// SGR styling for rendered Markdown. Each styled run is opened with every style in effect and closed with a
// full reset, so nested styles never leave a half-closed state; with colour off every style is the identity.

export type Sgr = string;

export const SGR = {
  bold: '1',
  dim: '2',
  italic: '3',
  underline: '4',
  strike: '9',
  red: '31',
  green: '32',
  yellow: '33',
  blue: '34',
  magenta: '35',
  cyan: '36',
  grey: '90',
} as const;

export interface Paint {
  readonly color: boolean;
  /** `text` with the styles `codes` (joined by `;`), or plain when colour is off. */
  (codes: Sgr[], text: string): string;
}

export function painter(color: boolean): Paint {
  const paint = ((codes: Sgr[], text: string) =>
    color && codes.length && text ? `\u001b[${codes.join(';')}m${text}\u001b[0m` : text) as Paint;
  Object.defineProperty(paint, 'color', { value: color });
  return paint;
}

/** What a terminal shows of a string: escape sequences take no room. */
export const visibleLength = (s: string): number => [...s.replace(/\u001b\[[0-9;]*m/g, '')].length;
