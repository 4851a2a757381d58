import type { Completion, CompletionOutcome } from '../engine/runtime.js';

/** Send completes a batch of tasks and claims the next ones (the engine's deleteThenSearch). */
export type SendCompletions = (batch: Completion[]) => Promise<CompletionOutcome[]>;

interface Pending extends Completion {
  resolve(outcome: CompletionOutcome): void;
  reject(error: unknown): void;
}

interface Lane {
  queue: Pending[];
  /** how many of its calls are under way */
  inFlight: number;
  scheduled: boolean;
  /** how many slots complete through this lane: alone, a slot need not wait for others */
  slots: number;
}

const missingOutcome = new Error(
  'Completions: the engine answered fewer completions than it was sent',
);

/**
 * The most completions one call carries. A script blocks Redis while it runs:
 * a plain completion and claim cost 30 to 70 µs of it, so 100 in one call ran
 * 5 to 7 ms at 1M tasks on a slow day (`npm run bench`, the adversarial row
 * "folded completions"). Calls of 25 took 1.3 ms on average that day (two
 * to four times that now and then, as any script there), where calls of 40
 * took 2 ms and did about 12 % more tasks a second at 100 slots. On a slower
 * day (2026-11-29) calls of 25 reached 7.1 ms at the 99.9th percentile at 1M,
 * so a call carries 16 (the average call of that row carried 16.7 anyway). A
 * call also ends once it has run the engine's stepTime, after its first
 * completion; the engine sends the ones it left in its next call
 * (runtime.ts deleteThenSearch). A folded call saves round trips more than
 * script time: a completion costs the script about the same alone or in
 * company.
 */
const foldedMost = 16;

/**
 * From how many slots a worker folds completions together, and into how many
 * lanes. Measured with a no-op handler on 2 cores (workers and Redis on one
 * machine; medians of 4 alternating runs, 2026-11-24), against one call per
 * completion: at 50 slots, 3 lanes did about 15 % more tasks per second (2 and
 * 5 lanes about 20 %); at 10 slots about as many (2 lanes 7 % fewer); with two
 * worker processes of 10 slots, where the cores are the limit, about 40 %
 * more (an earlier round, with 2 lanes), with less CPU per task throughout.
 */
const foldFrom = 4;
const foldedLanes = 3;
/**
 * How many calls a lane keeps under way: a second call goes out while the
 * answer to the first is worked through, so Redis has the next batch waiting.
 * Measured 2026-11-26 (no-op handler, 20,000 tasks, 4 runs each): 2 did about
 * 15 % more tasks per second than 1 at 10 slots and 4 % more at 50; 3 no more
 * than 2.
 */
const callsInFlight = 2;

/**
 * Completions sends the completions of a worker's slots to Redis, up to two
 * calls per lane at a time. With few slots every slot is a lane of its own and
 * sends its completion at once. With more, the slots share a few lanes: the
 * completions of a lane's slots that come in the same turn of the event loop,
 * and those that come while its call is under way, go together in its next
 * call, so a busy worker pays the fixed cost of a call (the script's set-up,
 * the queue's keys, the round trip) once for many tasks. Several lanes, and
 * two calls under way in each, so that Redis works on one call while this
 * process works on another's tasks: with one, they would take turns.
 */
export class Completions {
  private readonly lanes: Lane[];
  /** The most completions one call carries. */
  private readonly batchMost: number;

  /**
   * `batch` is the Worker option: above 1, a call carries up to max(batch,
   * 16) completions, and the slots share ceil(slots / batch) lanes, so that
   * a lane's call can fill up.
   */
  constructor(
    private readonly send: SendCompletions,
    slotCount: number,
    batch = 1,
  ) {
    this.batchMost = Math.max(batch, foldedMost);
    const lanes =
      batch > 1
        ? Math.max(1, Math.ceil(slotCount / batch))
        : slotCount < foldFrom
          ? Math.max(1, slotCount)
          : foldedLanes;
    this.lanes = Array.from({ length: lanes }, (_, index) => ({
      queue: [],
      inFlight: 0,
      scheduled: false,
      slots: Math.ceil((slotCount - index) / lanes),
    }));
  }

  /** complete deletes the task and claims the next one with the filter, in the next call of the slot's lane. */
  complete(completion: Completion, slot: number): Promise<CompletionOutcome> {
    const lane = this.lanes[slot % this.lanes.length];
    if (lane === undefined) throw new RangeError('Completions: no lanes');
    return new Promise((resolve, reject) => {
      lane.queue.push({
        task: completion.task,
        filters: completion.filters,
        parking: completion.parking,
        outcome: completion.outcome,
        children: completion.children,
        resolve,
        reject,
      });
      if (lane.slots === 1) {
        this.flush(lane);
      } else if (!lane.scheduled) {
        lane.scheduled = true;
        // the other slots of the lane that finish in this turn join the call
        setImmediate(() => {
          lane.scheduled = false;
          this.flush(lane);
        });
      }
    });
  }

  private flush(lane: Lane): void {
    while (lane.inFlight < callsInFlight && lane.queue.length > 0) this.sendBatch(lane);
  }

  private sendBatch(lane: Lane): void {
    const batch = lane.queue.splice(0, this.batchMost);
    lane.inFlight++;
    // one reaction settles the batch and frees the lane (no promise chain per call)
    void this.send(batch).then(
      (outcomes) => {
        try {
          for (let index = 0; index < batch.length; index++) {
            batch[index]?.resolve(outcomes[index] ?? { deleted: false, error: missingOutcome });
          }
        } finally {
          this.next(lane);
        }
      },
      (error: unknown) => {
        try {
          for (const pending of batch) pending.reject(error);
        } finally {
          this.next(lane);
        }
      },
    );
  }

  /** next frees a lane whose call settled and sends what came meanwhile. */
  private next(lane: Lane): void {
    lane.inFlight--;
    this.flush(lane);
  }
}
