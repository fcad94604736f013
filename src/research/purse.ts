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
  /** A call was refused with none in flight to give room back: a batch starts no further question. */
  exhausted = false;
  private waiters: (() => void)[] = [];
  private readonly claims = new Map<string, WriteClaim>();

  /** `shared`: a batch's purse, so that messages speak of the batch's cap. */
  constructor(
    readonly limitUsd: number,
    readonly shared = false,
  ) {}

  /** A run joins under its id; its write reserve counts against the others' calls until it leaves. */
  join(runId: string, claim: WriteClaim): void {
    this.claims.set(runId, claim);
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

  /** Resolves when a call settles or a run leaves: room may have come back. */
  changed(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  wake(): void {
    const waiting = this.waiters;
    this.waiters = [];
    for (const resolve of waiting) resolve();
  }
}
