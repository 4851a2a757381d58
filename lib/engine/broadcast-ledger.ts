/** The ids of an empty ledger: most engines never receive a broadcast task. */
const none: readonly string[] = [];

/**
 * BroadcastLedger is an engine's memory of the broadcast tasks it received
 * (docs/semantics.md §1.8): object id -> local lease end and whether this engine
 * completed it. It lives in memory only; a new engine starts empty and
 * receives only broadcast tasks created after its start.
 *
 * Search walks the queue's broadcast tasks in store order (their sequence
 * numbers) from a floor: everything up to the floor is settled for the
 * filters searched with, because it was created before this engine started,
 * none of the filters matches it, or this engine received it (and then the
 * ledger has it). There is one floor per set of filters, so a broadcast task
 * a worker's handlers never take stops costing that worker anything. A task
 * received whose local lease ended without completion is offered again from
 * the ledger (`redeliverIds`), not from the walk.
 */
export class BroadcastLedger {
  private readonly entries = new Map<string, { leaseEndMs: number; done: boolean }>();
  /** filter set -> the sequence number up to which broadcast tasks are settled for it */
  private readonly floors = new Map<string, number>();
  /** broadcast tasks up to this sequence number were created before the engine started: settled for every set */
  private baseFloor = 0;

  /** floor is where the walk for a set of filters starts ('' for no filter). */
  floor(filterSet: string): number {
    return this.floors.get(filterSet) ?? this.baseFloor;
  }

  /** base is the floor of every set: what the engine's start settled. */
  get base(): number {
    return this.baseFloor;
  }

  /** skipIds are the ids above a set's floor this engine received: the walk passes them over. */
  skipIds(filterSet: string): readonly string[] {
    if (this.entries.size === 0) return none;
    const floor = this.floor(filterSet);
    return [...this.entries.keys()].filter((id) => sequenceOf(id) > floor);
  }

  /** redeliverIds are the ids received, not completed, whose local lease ended at nowMs. */
  redeliverIds(nowMs: number): readonly string[] {
    if (this.entries.size === 0) return none;
    return [...this.entries]
      .filter(([, entry]) => !entry.done && entry.leaseEndMs <= nowMs)
      .map(([id]) => id);
  }

  /** raiseFloor moves a set's floor, and the base, up to what the search script found settled. */
  raiseFloor(filterSet: string, sequence: number, base: number): void {
    if (sequence > this.floor(filterSet)) this.floors.set(filterSet, sequence);
    if (base > this.baseFloor) this.baseFloor = base;
  }

  /**
   * restartFloors sends every walk back to the start: the queue's sequence
   * counter went below a floor (Redis restored from an older snapshot, or a
   * failover to a replica that lagged), so tasks stored from then on got
   * numbers the floors had passed already and would never be delivered. The
   * walk passes again, a step at a time, over what the ledger and the start
   * instant settle.
   */
  restartFloors(): void {
    this.floors.clear();
    this.baseFloor = 0;
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

  /** complete marks a task done here (delete's step 1, or a worker none of whose handlers takes it). */
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
    this.floors.clear();
    this.baseFloor = 0;
  }
}

function sequenceOf(id: string): number {
  return Number(id.slice(14));
}
