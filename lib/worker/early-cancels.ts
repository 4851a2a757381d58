/**
 * EarlyCancels remembers the cancels a worker heard for tasks it does not run
 * (yet): the cancel's message comes on the subscriber connection and can
 * overtake the reply of the claim on the command connection, so the task
 * arrives after its cancel. A task whose cancel was heard is not started.
 * Each cancel is kept for a short while, and only so many, the oldest
 * forgotten first: a claim reply comes within a round trip, or not at all.
 */
export class EarlyCancels {
  /** id -> until when (ms of `now`) the cancel is kept, in the order heard */
  private readonly until = new Map<string, number>();

  constructor(
    /** how long a cancel is kept, in ms of `now` */
    private readonly forMs = 10_000,
    private readonly most = 1_000,
    /** a monotonic clock in ms; real time: the worker's own timing, not the engine's */
    private readonly now: () => number = () => performance.now(),
  ) {}

  get size(): number {
    return this.until.size;
  }

  /** heard keeps the cancel of a task, and forgets those kept long enough. */
  heard(id: string): void {
    const now = this.now();
    for (const [kept, until] of this.until) {
      if (until > now && this.until.size < this.most) break;
      this.until.delete(kept);
    }
    this.until.delete(id);
    this.until.set(id, now + this.forMs);
  }

  /** take tells whether the task's cancel was heard (still kept), and forgets it. */
  take(id: string): boolean {
    const until = this.until.get(id);
    if (until === undefined) return false;
    this.until.delete(id);
    return until > this.now();
  }
}
