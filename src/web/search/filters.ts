import type { SearchResult } from './result.js';

// Web filters: keep searches to some sites, away from others, and to pages published recently. Each
// backend is asked in its own documented form; results that still fall outside are dropped afterwards.

export interface WebFilters {
  /** Only these domains (and their subdomains). */
  sites: string[];
  /** Never these domains (and their subdomains). */
  excludeSites: string[];
  /** Only pages published within this period: `7d`, `6m`, `1y`. */
  recent?: string;
}

export interface Period {
  amount: number;
  unit: 'd' | 'm' | 'y';
}

export const PERIOD_HINT = 'a number of days, months or years such as 7d, 6m or 1y';

/** `7d`, `6m`, `1y` → a period; anything else undefined. */
export function parsePeriod(text: string): Period | undefined {
  const m = /^([1-9]\d{0,3})([dmy])$/.exec(text.trim().toLowerCase());
  return m ? { amount: Number(m[1]), unit: m[2] as Period['unit'] } : undefined;
}

/** The first moment inside the period, counted back from `now`. */
export function periodStart(period: Period, now: Date): Date {
  const start = new Date(now);
  if (period.unit === 'd') start.setUTCDate(start.getUTCDate() - period.amount);
  else if (period.unit === 'm') start.setUTCMonth(start.getUTCMonth() - period.amount);
  else start.setUTCFullYear(start.getUTCFullYear() - period.amount);
  return start;
}

/** How many days the period spans (months and years as the calendar has them, counted back from now). */
export function periodDays(period: Period, now: Date): number {
  return Math.round((now.getTime() - periodStart(period, now).getTime()) / 86_400_000);
}

/**
 * The named window of a backend (`day`, `week`, `month`, `year`) that covers the period exactly, if one
 * does; a period with no exact window gets the smallest that contains it from `covering`.
 */
export function namedWindow(
  period: Period,
  now: Date,
  covering = false,
): 'day' | 'week' | 'month' | 'year' | undefined {
  const { amount, unit } = period;
  if (unit === 'd' && amount === 1) return 'day';
  if (unit === 'd' && amount === 7) return 'week';
  if (unit === 'm' && amount === 1) return 'month';
  if (unit === 'y' && amount === 1) return 'year';
  if (!covering) return undefined;
  const days = periodDays(period, now);
  if (days <= 7) return 'week';
  if (days <= 31) return 'month';
  if (days <= 366) return 'year';
  return undefined;
}

/** A date as YYYY-MM-DD (UTC). */
export const isoDay = (date: Date): string => date.toISOString().slice(0, 10);

/**
 * A domain as the user may type it (`Example.com`, `https://www.example.com/docs`) → `example.com`-like host;
 * undefined when it is not a host name.
 */
export function parseDomain(text: string): string | undefined {
  let host = text.trim().toLowerCase();
  if (/^[a-z][a-z0-9+.-]*:\/\//.test(host)) {
    try {
      host = new URL(host).hostname;
    } catch {
      return undefined;
    }
  } else host = host.split('/')[0]!;
  host = host.replace(/^\*\./, '').replace(/\.$/, '');
  return /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*$/.test(host)
    ? host
    : undefined;
}

/** A host is on a domain when it is the domain or one of its subdomains. */
export function onDomain(host: string, domain: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  return h === domain || h.endsWith(`.${domain}`);
}

/** `site:` operators for a query: `(site:a OR site:b) -site:c`; empty when no site filter is set. */
export function siteOperators(f: WebFilters): string {
  const only = f.sites.map((d) => `site:${d}`);
  const parts = [only.length > 1 ? `(${only.join(' OR ')})` : (only[0] ?? '')];
  for (const d of f.excludeSites) parts.push(`-site:${d}`);
  return parts.filter(Boolean).join(' ');
}

/** The query with the site operators after it. */
export const withSites = (query: string, f: WebFilters | undefined): string => {
  const ops = f ? siteOperators(f) : '';
  return ops ? `${query} ${ops}` : query;
};

export type FilterMiss = 'site' | 'excluded' | 'old';

/**
 * Why a result falls outside the filters, or undefined when it is inside. A result with no published date
 * is kept: no backend dates every page, and a page without a date is not known to be old.
 */
export function filterMiss(result: SearchResult, f: WebFilters, now: Date): FilterMiss | undefined {
  let host: string;
  try {
    host = new URL(result.url).hostname;
  } catch {
    return f.sites.length ? 'site' : undefined;
  }
  if (f.sites.length && !f.sites.some((d) => onDomain(host, d))) return 'site';
  if (f.excludeSites.some((d) => onDomain(host, d))) return 'excluded';
  const period = f.recent ? parsePeriod(f.recent) : undefined;
  if (period && result.published) {
    const at = Date.parse(result.published);
    if (!Number.isNaN(at) && at < periodStart(period, now).getTime()) return 'old';
  }
  return undefined;
}

/** Whether any filter is set. */
export const hasFilters = (f: WebFilters | undefined): f is WebFilters =>
  Boolean(f && (f.sites.length || f.excludeSites.length || f.recent));
