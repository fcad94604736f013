import type { Fact } from '../../quantities/fact.js';
import { readFacts } from '../../quantities/read.js';
import { TABLE_RULE } from '../claims.js';

// A table's header may say what its cells count: "Cost (€k)", "Rate (%)", "Revenue, USD million",
// "Distance in km". Each number in such a column is read again as if written with its unit and scale
// ("12.5" under "Cost (€k)" is €12,500), beside its reading as a bare number.

const CURRENCY = /^(?:[$€£¥₹]|USD|EUR|GBP|CHF|CAD|AUD|JPY|INR)$/;
const SCALE: Record<string, string> = {
  k: 'thousand',
  thousand: 'thousand',
  thousands: 'thousand',
  "'000": 'thousand',
  "'000s": 'thousand',
  m: 'million',
  mn: 'million',
  mio: 'million',
  million: 'million',
  millions: 'million',
  bn: 'billion',
  b: 'billion',
  billion: 'billion',
  billions: 'billion',
};

interface ColumnUnit {
  currency?: string;
  scale?: string;
  unit?: string;
}

/** What a header cell says its column counts, if anything. */
export function headerUnit(header: string): ColumnUnit | undefined {
  const said = /\(([^)]{1,20})\)\s*$/.exec(header)?.[1] ?? /(?:,|\bin)\s+([^,]{1,20})$/i.exec(header)?.[1];
  if (!said) return undefined;
  const out: ColumnUnit = {};
  // "€k", "USD m", "$ million", "%", "km", "days".
  for (const part of said.trim().split(/\s+|(?<=^[$€£¥₹])(?=\S)/)) {
    const lower = part.toLowerCase();
    if (CURRENCY.test(part)) out.currency = part;
    else if (lower in SCALE) out.scale = SCALE[lower];
    else if (/^[$€£¥₹]/.test(part) && part.slice(1).toLowerCase() in SCALE) {
      out.currency = part[0];
      out.scale = SCALE[part.slice(1).toLowerCase()];
    } else out.unit = out.unit ? `${out.unit} ${part}` : part;
  }
  return out.currency || out.scale || out.unit ? out : undefined;
}

/** The facts a source's tables give through their headers' units. */
export function tableHeaderUnits(text: string): Fact[] {
  if (!text.includes('|')) return [];
  const facts: Fact[] = [];
  const lines = text.split('\n');
  for (let i = 0; i + 1 < lines.length; i++) {
    const header = lines[i]!.trim();
    if (!header.startsWith('|') || !TABLE_RULE.test(lines[i + 1]!.trim())) continue;
    const units = cells(header).map(headerUnit);
    if (!units.some(Boolean)) continue;
    for (let j = i + 2; j < lines.length && lines[j]!.trim().startsWith('|'); j++)
      cells(lines[j]!).forEach((cell, k) => {
        const u = units[k];
        if (!u || !/^[-−]?\d[\d.,' ]*$/.test(cell)) return;
        const written = `${u.currency ?? ''}${cell}${u.scale ? ` ${u.scale}` : ''}${u.unit ? ` ${u.unit}` : ''}`;
        for (const f of readFacts(written)) facts.push(f);
      });
  }
  return facts;
}

const cells = (line: string): string[] =>
  line
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split('|')
    .map((c) => c.trim());
