// Money as people read it, one rule for every place agent shows a cost (terminal, reports, errors).

/**
 * Dollars, by one rule everywhere: four significant digits under $1 (a cheap call's $0.005832 beside a
 * run's $0.05000, never $0.0058 beside $0.05), cents from $1 on; unknown (no price) said as such.
 */
export function formatUsd(n: number | null): string {
  if (n === null) return 'unknown';
  if (n === 0) return '$0.00';
  const sign = n < 0 ? '-' : '';
  const a = Math.abs(n);
  // Rounded to four digits first: $0.99996 is $1.00, not $1.000.
  if (Number(a.toPrecision(4)) >= 1) return `${sign}$${a.toFixed(2)}`;
  // toFixed, not toPrecision, which turns to exponents under 1e-6; past ten decimals nothing is billed.
  const decimals = Math.min(10, 3 - Math.floor(Math.log10(a)));
  return `${sign}$${a.toFixed(decimals)}`;
}
