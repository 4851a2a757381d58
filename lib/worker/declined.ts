/**
 * DeclinedTasks remembers the tasks none of a worker's handlers took, so that
 * its searches pass over them for a while: other workers take them meanwhile,
 * and the newer tasks behind an old one nobody here can do stay reachable for
 * a worker that searches without labels. It holds at most `most` ids,
 * forgetting the oldest first.
 */
export class DeclinedTasks {
  /** id -> until when (ms of `now`) it is skipped, in the order declined */
  private readonly until = new Map<string, number>();

  constructor(
    /** how long a declined task is skipped, in ms of `now` */
    private readonly forMs = 60_000,
    private readonly most = 1_000,
    /** a monotonic clock in ms; real time: the worker's own timing, not the engine's */
    private readonly now: () => number = () => performance.now(),
  ) {}

  get size(): number {
    return this.until.size;
  }

  /** decline starts skipping a task (again, for the whole period, if it was skipped already). */
  decline(id: string): void {
    this.until.delete(id);
    if (this.until.size >= this.most) {
      const oldest = this.until.keys().next().value;
      if (oldest !== undefined) this.until.delete(oldest);
    }
    this.until.set(id, this.now() + this.forMs);
  }

  /** ids lists the tasks still skipped, oldest first, and forgets those whose period ended. */
  ids(): string[] {
    const now = this.now();
    for (const [id, until] of this.until) if (until <= now) this.until.delete(id);
    return [...this.until.keys()];
  }
}
