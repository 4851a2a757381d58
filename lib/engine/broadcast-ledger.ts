/**
 * BroadcastLedger is an engine's memory of the broadcast tasks it received
 * (semantics 1.8): object id -> local lease end and whether this engine
 * completed it. It lives in memory only; a new engine starts empty and
 * receives only broadcast tasks created after its start.
 */
export class BroadcastLedger {
  private readonly entries = new Map<string, { leaseEndMs: number; done: boolean }>();
  /** Broadcast ids up to the floor are done (or predate this engine): search scans after it. */
  private floorId: string;

  constructor(startMs: number) {
    // every id created in the start millisecond sorts at or below this one
    this.floorId = `${String(startMs).padStart(13, '0')}-999999999999`;
  }

  get floor(): string {
    return this.floorId;
  }

  /** doneIds are the completed ids above the floor, which search skips. */
  doneIds(): string[] {
    return [...this.entries]
      .filter(([id, entry]) => entry.done && id > this.floorId)
      .map(([id]) => id);
  }

  /** leasedIds are the ids this engine still holds a local lease on at nowMs. */
  leasedIds(nowMs: number): string[] {
    return [...this.entries]
      .filter(([, entry]) => !entry.done && entry.leaseEndMs > nowMs)
      .map(([id]) => id);
  }

  /** raiseFloor moves the floor up to an id the search script found done with all before it. */
  raiseFloor(id: string): void {
    if (id > this.floorId) this.floorId = id;
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

  /** forget drops entries of tasks created before a cutoff: retention deleted them. */
  forget(createdBeforeMs: number): void {
    const cutoff = String(createdBeforeMs).padStart(13, '0');
    for (const id of this.entries.keys()) {
      if (id.slice(0, 13) < cutoff) this.entries.delete(id);
    }
  }

  clear(): void {
    this.entries.clear();
  }
}
