// The money side of a spending cap: what has been spent, what calls in flight hold back, and the write
// step each unfinished run still needs. A run has a purse of its own; a batch (`--batch --max-cost`)
// gives all its runs one, so the cap covers the whole batch and no run's write step is ever left unfunded.

/** A run's claim on the purse beyond its calls in flight: the worst case of the write step it still owes. */
export interface WriteClaim {
  writeReserve(): number;
}

export class Purse {
  spent = 0;
  reserved = 0;
  inFlight = 0;
  /** A call was refused when no other run was left to give room back: a batch starts no more questions. */
  exhausted = false;
  private waiters: (() => void)[] = [];
  private readonly claims = new Map<string, WriteClaim>();
  /** Runs waiting for room. */
  private readonly waiting = new Set<WriteClaim>();

  /** `shared`: a batch's purse, so that messages speak of the batch's cap. */
  constructor(
    readonly limitUsd: number,
    readonly shared = false,
  ) {}

  /** A run joins under its id; its write reserve counts against the others' calls until it leaves. */
  join(runId: string, claim: WriteClaim): void {
    this.claims.set(runId, claim);
  }

  /**
   * Whether room may still come back for a run that waits: a call in flight will settle, or another run
   * that is not itself waiting will make a call or leave. When none can, the run stops instead of waiting
   * (two runs waiting on each other would wait for ever); alone, it leaves the batch nothing to start on.
   */
  mayFree(claim: WriteClaim): boolean {
    if (this.inFlight > 0) return true;
    for (const other of this.claims.values()) if (other !== claim && !this.waiting.has(other)) return true;
    if (![...this.claims.values()].some((other) => other !== claim)) this.exhausted = true;
    return false;
  }

  /**
   * Waits for a change (a call settled, a run left) before the run checks again. Every wait ends: the
   * last run to wait saw a call in flight (it settles) or a run not waiting, which will settle a call,
   * stop (and write, or fail and leave) or leave.
   */
  async wait(claim: WriteClaim): Promise<void> {
    this.waiting.add(claim);
    try {
      await this.changed();
    } finally {
      this.waiting.delete(claim);
    }
  }

  /** The run is over (answered, failed or cancelled): what it held back is free for the others. */
  leave(runId: string): void {
    if (this.claims.delete(runId)) this.wake();
  }

  /** The write reserves of every run but this one. */
  othersReserve(claim: WriteClaim): number {
    let sum = 0;
    for (const other of this.claims.values()) if (other !== claim) sum += other.writeReserve();
    return sum;
  }

  private changed(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  wake(): void {
    const waiting = this.waiters;
    this.waiters = [];
    for (const resolve of waiting) resolve();
  }
}
