import type { PriceTable } from '../../providers/prices.js';
import { StoreError } from '../../store/errors.js';
import type { Store } from '../../store/store.js';
import type { LedgerEntry } from '../../store/types.js';
import type { FolderIO } from './folder-io.js';

// The ledger rows of a run's embedding calls. The question's call waits for its row; a folder's many
// calls go on while theirs are written (on a team database a round trip each, which held every call
// back), and the step ends only once all are written. A row that cannot be written stops the calls: none
// is made that cannot be recorded, beyond those already in flight.

/** The store cannot be written at all (offline, read-only): the run goes on, its usage its own. */
const tolerated = (error: unknown) =>
  error instanceof StoreError && (error.problem === 'offline' || error.problem === 'read-only');

export class EmbedLedger {
  private readonly writing = new Set<Promise<void>>();
  private failure: unknown;

  constructor(
    private readonly store: Store,
    private readonly userPrices?: PriceTable,
  ) {}

  /** Throws what an earlier row's write threw. */
  check(): void {
    if (this.failure !== undefined) throw this.failure;
  }

  /** Writes the call's row: awaited on the store, or (a folder's calls) through `write`, left to settle(). */
  async record(entry: LedgerEntry, write?: FolderIO['record']): Promise<void> {
    const written = (write ?? ((e, p) => this.store.ledger.record(e, p)))(entry, this.userPrices).then(
      () => {},
      (error: unknown) => {
        if (!tolerated(error)) this.failure ??= error;
      },
    );
    if (!write) {
      await written;
      return this.check();
    }
    this.writing.add(written);
    void written.then(() => this.writing.delete(written));
  }

  /** Waits until every row recorded so far is written (or has failed). */
  async settle(): Promise<void> {
    while (this.writing.size) await Promise.all(this.writing);
  }
}
