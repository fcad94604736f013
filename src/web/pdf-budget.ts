import { ConfigError } from '../errors.js';

/** A PDF read by URL (read_url, research's web sources) stops after this long, with the pages read by then. */
export const PDF_TIME_BUDGET_MS = 15_000;

/**
 * The time budget for reading a PDF by URL: AGENT_PDF_BUDGET_MS (milliseconds) when set, else 15 s. A
 * value that is not a whole number above 0 is a ConfigError, so a typo does not silently mean 15 s.
 */
export function pdfBudgetMs(env: NodeJS.ProcessEnv): number {
  const raw = env.AGENT_PDF_BUDGET_MS?.trim();
  if (!raw) return PDF_TIME_BUDGET_MS;
  const ms = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(ms > 0) || !Number.isSafeInteger(ms))
    throw new ConfigError(
      `AGENT_PDF_BUDGET_MS=${raw} is not a time budget: expected milliseconds, a whole number above 0, like 15000.`,
    );
  return ms;
}

/** A budget in words: "15 s", "2.5 s", "50 ms". */
export function budgetWords(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Number((ms / 1000).toFixed(1))} s`;
}
