import type { CompletionOutcome, Parking } from '../engine/runtime.js';
import type { Task } from '../task/task.js';

/** SendClaims claims one task for each slot parked so (the engine's claimTasks). */
export type SendClaims = (parkings: Parking[]) => Promise<CompletionOutcome[]>;

interface Waiting {
  parking: Parking;
  resolve(task: Task | undefined): void;
  reject(error: unknown): void;
}

const missingClaim = new Error('Claims: the engine answered fewer claims than it was sent');

/**
 * Claims sends the searches of a worker's free slots to Redis together (the
 * Worker option `batch`): the slots that ask in the same turn of the event
 * loop (all of them at start, those woken together) go in one call of up to
 * `batch` claims, one task a slot, so a call never claims more tasks than
 * there are free slots. Each slot gets its own task, or none (its slot
 * parked), or its search's error.
 */
export class Claims {
  private waiting: Waiting[] = [];
  private scheduled = false;

  constructor(
    private readonly send: SendClaims,
    private readonly batch: number,
  ) {}

  /** claim claims a task for the slot parked so, in the next call. */
  claim(parking: Parking): Promise<Task | undefined> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ parking, resolve, reject });
      if (this.scheduled) return;
      this.scheduled = true;
      // the other free slots that ask in this turn join the call
      setImmediate(() => {
        this.scheduled = false;
        while (this.waiting.length > 0) this.sendBatch(this.waiting.splice(0, this.batch));
      });
    });
  }

  private sendBatch(batch: Waiting[]): void {
    void this.send(batch.map((waiting) => waiting.parking)).then(
      (outcomes) => {
        for (let index = 0; index < batch.length; index++) {
          const waiting = batch[index] as Waiting;
          const outcome = outcomes[index];
          if (outcome === undefined) waiting.reject(missingClaim);
          else if (!outcome.deleted) waiting.reject(outcome.error);
          else if (outcome.searchError !== undefined) waiting.reject(outcome.searchError);
          else waiting.resolve(outcome.next);
        }
      },
      (error: unknown) => {
        for (const waiting of batch) waiting.reject(error);
      },
    );
  }
}
