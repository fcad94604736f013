import type { ResearchEvent, ResearchStep, TimedStep, Timings } from '../types.js';

export type { TimedStep, Timings } from '../types.js';

const GROUP: Partial<Record<ResearchStep, TimedStep>> = {
  index: 'index',
  embed: 'index',
  plan: 'plan',
  sources: 'sources',
  extract: 'sources',
  followup: 'followup',
  write: 'write',
  report: 'write',
  search: 'search',
  select: 'search',
};

/** Watches a run's step events and times each step until the next one starts. */
export class StepClock {
  private readonly start = performance.now();
  private current: { step: TimedStep; since: number } | undefined;
  private readonly spent = new Map<TimedStep, number>();

  /** Passes every event on; a step event closes the step before it. */
  observe(event: ResearchEvent): void {
    if (event.type !== 'step') return;
    const step = GROUP[event.name] ?? (event.name as TimedStep);
    if (this.current?.step === step) return;
    this.close();
    this.current = { step, since: performance.now() };
  }

  /** The figures so far (closing the step under way). */
  finish(): Timings {
    this.close();
    const timings = {} as Timings;
    for (const [step, ms] of this.spent) timings[step] = seconds(ms);
    timings.total = seconds(performance.now() - this.start);
    return timings;
  }

  private close(): void {
    if (!this.current) return;
    const { step, since } = this.current;
    this.spent.set(step, (this.spent.get(step) ?? 0) + performance.now() - since);
    this.current = undefined;
  }
}

const seconds = (ms: number) => Math.round(ms) / 1000;

/** "plan 0.4 s, sources 1.9 s, write 0.4 s": the steps in the order they ran, total left out. */
export function timingsLine(t: Timings): string {
  return Object.entries(t)
    .filter(([step]) => step !== 'total')
    .map(([step, s]) => `${step} ${formatSeconds(s as number)}`)
    .join(', ');
}

function formatSeconds(s: number): string {
  return s < 10 ? `${s.toFixed(1)} s` : `${Math.round(s)} s`;
}
