/**
 * BroadcastLedger is an engine's memory of the broadcast tasks it received
 * (semantics 1.8): object id -> local lease end and whether this engine
 * completed it. It lives in memory only; a new engine starts empty and
 * receives only broadcast tasks created after its start.
 */
export class BroadcastLedger {
  private readonly entries = new Map<string, { leaseEndMs: number; done: boolean }>();
  /**
   * Broadcast tasks stored up to this sequence number are done here or predate
   * this engine; search scans after it. Sequence numbers follow store order,
   * so a task stored later is never below the floor.
   */
  private floorSequence = 0;

  get floor(): number {
    return this.floorSequence;
  }

  /** doneIds are the completed ids above the floor, which search skips. */
  doneIds(): string[] {
    return [...this.entries]
      .filter(([id, entry]) => entry.done && sequenceOf(id) > this.floorSequence)
      .map(([id]) => id);
  }

  /** leasedIds are the ids this engine still holds a local lease on at nowMs. */
  leasedIds(nowMs: number): string[] {
    return [...this.entries]
      .filter(([, entry]) => !entry.done && entry.leaseEndMs > nowMs)
      .map(([id]) => id);
  }

  /** raiseFloor moves the floor up to a sequence number the search script found done with all before it. */
  raiseFloor(sequence: number): void {
    if (sequence > this.floorSequence) this.floorSequence = sequence;
  }

  /**
   * deliver records a delivery and says whether it may happen: not when the
   * task is done here or under a local lease (a concurrent search of this
   * engine delivered it first).
   */
  deliver(id: string, nowMs: number, leaseEndMs: number): boolean {
    const entry = this.entries.get(id);
    if (entry !== undefined && (entry.done || entry.leaseEndMs > nowMs)) return false;
    this.entries.set(id, { leaseEndMs, done: false });
    return true;
  }

  has(id: string): boolean {
    return this.entries.has(id);
  }

  complete(id: string): void {
    const entry = this.entries.get(id);
    if (entry !== undefined) entry.done = true;
  }

  /** ids lists every id the ledger holds. */
  ids(): string[] {
    return [...this.entries.keys()];
  }

  /** forget drops the entries of tasks that are no longer in the queue. */
  forget(gone: Iterable<string>): void {
    for (const id of gone) this.entries.delete(id);
  }

  get size(): number {
    return this.entries.size;
  }

  clear(): void {
    this.entries.clear();
  }
}

function sequenceOf(id: string): number {
  return Number(id.slice(14));
}
