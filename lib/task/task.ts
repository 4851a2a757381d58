/** Labels is one label map: string keys to string values. */
export type Labels = Record<string, string>;

/**
 * Task is a plain object of up to seven label maps. An absent map (missing,
 * `undefined`, or `null` on input) differs from an empty one (`{}`), and the
 * engine keeps that difference.
 *
 * ```text
 *     core  engine-managed: object id, worker, expiry, cycles; the user sets only cancel
 *     cron  @every / @exact (user), tick-1 / tick+1 (engine), @defer (on delete)
 *     gate  trigger / waiting / deleted: dependencies between tasks
 *     meta  the user's description of the work; required on create
 *     node  delivery: method all | any | uni (+ worker for uni)
 *     root  a label set that makes this task obsolete once another task's meta has it
 *     sync  state carried across cycles; sync.rescue.io/paging requeues on delete
 * ```
 *
 * Beside the maps, a task may carry a `payload`: one JSON value for its
 * handler, stored with it and never matched by queries (docs/semantics.md §1.11).
 */
export interface Task {
  core?: Labels;
  cron?: Labels;
  gate?: Labels;
  meta?: Labels;
  node?: Labels;
  root?: Labels;
  sync?: Labels;
  /** One JSON value stored with the task, for its handler; never matched by queries. */
  payload?: unknown;
}

/** The seven map names, in the order of the stored JSON. */
export const mapNames = ['core', 'cron', 'gate', 'meta', 'node', 'root', 'sync'] as const;

export type MapName = (typeof mapNames)[number];

/**
 * The top-level keys a task given to create may have; create rejects any
 * other (TaskKeyError). A new kind of content beside the maps is added here.
 */
export const taskKeys: readonly string[] = [...mapNames, 'payload'];

/**
 * TaskInput is what create takes: a Task whose cron `@exact` time may also
 * be a Date (stored as formatTime of it).
 */
export interface TaskInput extends Omit<Task, 'cron'> {
  cron?: Record<string, string | Date>;
}
