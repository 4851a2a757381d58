/**
 * The scripts' arguments (ARGV), each list declared once: its names in the
 * order a call passes them, each with what it holds. TypeScript builds a
 * call's ARGV from named values (`argv`); a script reads an argument as
 * `ARGV[ARG.<list>.<name>]`, and `#ARG.<list>` is how many the list has: the
 * loader (loader.ts inlineArguments) writes both as numbers. A script whose
 * ARGV is several lists one after another (delete-search, complete-claim,
 * create-many: a head, then the same list per entry) reads each from where it
 * starts: `ARGV[first + ARG.<list>.<name>]` with `first` the count of the
 * arguments before it. A list can also be a JSON array passed as one argument
 * (delete_rare, claim_rare; spawned, an entry of delete's children):
 * `rare[ARG.<list>.<name>]` of the decoded array.
 *
 * Names are the Lua spelling (snake_case) in both languages. A list is named
 * after its script (`-` as `_`), or after the part of a script's ARGV it is.
 * Longer descriptions of a value's form stay in the script's header, by name.
 */
export const scriptArguments = {
  acl_check: {
    probes: 'JSON array of calls, each an array: command name, then its arguments',
  },
  cancel: {
    now_ms: "the engine's clock, ms since the epoch",
    id: "the task's object id",
    fields: "JSON object of the outcome's fields (the error that says who cancelled it)",
    retention: 'how long the outcome is kept, ms (0: not kept)',
    most: 'how many outcomes the queue keeps at most',
    request: 'the idempotent request (include/request.lua)',
  },
  caps: {
    now_ms: "the engine's clock, ms since the epoch",
    operation: "'set' or 'remove'",
    key: "the meta key ('' for the whole queue)",
    concurrency: "the most tasks owned at once, a positive integer ('' with remove)",
  },
  caps_list: {
    now_ms: "the engine's clock, ms (read by no rule: every script is given it)",
  },
  complete_claim: {
    now_ms: "the engine's clock, ms since the epoch",
    expiry: 'formatTime(now + expiry): the lease end of a claim',
    expiry_ms: 'the same in ms',
    request_key: "`<instance>:<slot>` of the idempotent request (include/request.lua), or ''",
    request_number: "its number, or ''",
    floors: "'<floor>:<base>' of the searches' filters (search's floors)",
    engine:
      "`<start ms>:<self key>:<retention>:<most>:<park for ms>:<worker>` (include/engine-args.lua): the engine's start instant (broadcast tasks), where its worker sorts among the owners (lib/engine/keys.ts workerOrderKey), how long a deleted task's outcome is kept (ms, 0: not kept), how many outcomes the queue keeps at most, how long a slot that finds no work stays parked ('': no parking), the worker id (the owner of every task completed)",
    rare: "'' or the JSON array claim_rare: the lean path runs only without; `r` before it when the request may have run already (complete-claim.lua: only such a send looks for a kept answer)",
  },
  claim_rare: {
    redeliver: "search's redeliver",
    exclude: "search's exclude",
    filters: "search's filters",
    filter_ids: "search's filter_ids",
    skip: "search's skip",
  },
  claim_entry: {
    id: "the id of the task to complete ('' for a claim alone)",
    token: "the copy's fencing token",
    record: "the record its claim answered ('' when unknown: include/lean.lua lean_complete)",
    since:
      "the now_ms of the call whose claim answered record ('' with it): the since of the task's `owned` member",
    outcome: "the outcome's fields ('' for none)",
    slot: "the slot that claims ('' for none)",
  },
  create: {
    now_ms: "the engine's clock, ms since the epoch",
    task: "JSON of the validated task: node defaulted, a template's ticks set, core without the object id",
    due_ms: "when an @exact task becomes due, or ''",
    tick_p1_ms: "a cron template's tick+1, or ''",
    check_ms: "when a template's tick-1 may need maintenance, or ''",
    layout: 'the layout version the engine writes',
    request: 'the idempotent request (include/request.lua)',
    after: "the id of the task whose completion releases this one, or ''",
    unique: "`<mode>\\0<ttl ms>` for a task whose core names a unique key, or ''",
  },
  create_lean: {
    now_ms: "the engine's clock, ms since the epoch",
    task: "'': where create has its task, the mark of this form",
    record: 'the task in the stored form (lib/task/codec.ts encodeStored)',
    request_key: '`<instance>:<slot>` of the idempotent request',
    request_number: 'its number',
    layout:
      "the layout version the engine writes when the queue has none, or ''; `r` before it when the request may have run already (create.lua: only such a send looks for a kept answer)",
  },
  create_many: {
    now_ms: "the engine's clock, ms since the epoch",
    form: "'l': a create_many_plain list a task (a chunk of plain tasks only), 'g': a create_many_task list a task; `r` before it when the request may have run already (create-many.lua: only such a send looks for a kept answer)",
    layout: "the layout version the engine writes when the queue has none, or ''",
    request_key: '`<instance>:<slot>` of the idempotent request (one per chunk)',
    request_number: 'its number',
  },
  create_many_plain: {
    record: 'the task in the stored form (lib/task/codec.ts encodeStored)',
  },
  create_many_task: {
    kind: "'l' (a plain task), 'g' (general) or 'u<mode>\\0<ttl ms>' (unique)",
    task: "the stored form ('l'), else JSON of the validated task",
    due_ms: "create's due_ms ('' with 'l')",
    tick_p1_ms: "create's tick_p1_ms ('' with 'l')",
    check_ms: "create's check_ms ('' with 'l')",
  },
  spawned: {
    task: "create's task",
    due_ms: "create's due_ms",
    tick_p1_ms: "create's tick_p1_ms",
    check_ms: "create's check_ms",
  },
  cycles: {
    now_ms: "the engine's clock, ms since the epoch",
    id: "the task's object id",
    request: 'the idempotent request (include/request.lua)',
  },
  delete: {
    now_ms: "the engine's clock, ms since the epoch",
    id: "the copy's object id",
    worker: "the copy's core worker, or ''",
    bypass: "delete_rare's bypass",
    requeue: "delete_rare's requeue",
    defer_ok: "delete_rare's defer_ok",
    requeued: "delete_rare's requeued",
    due_ms: "delete_rare's due_ms",
    tick_p1_ms: "delete_rare's tick_p1_ms",
    gate: "delete_rare's gate",
    sync: "delete_rare's sync",
    root_id: "delete_rare's root_id",
    token: "the copy's core fencing token, or ''",
    outcome: "JSON object of the outcome's fields the engine adds (result, startedAt, log), or ''",
    retention: "how long a deleted task's outcome is kept, ms (0: not kept)",
    most: 'how many outcomes the queue keeps at most',
    children: "delete_rare's children",
    request: 'the idempotent request (include/request.lua)',
  },
  delete_rare: {
    bypass: "'1' when the copy's core bypass is 'true'",
    requeue: "'1' when the copy pages or defers (and has no gate, no root)",
    defer_ok: "'0' when the copy's @defer is not a duration (requeue only)",
    requeued: "JSON of the requeued maps {cron, meta, node, sync}, or ''",
    due_ms: "when the requeued task becomes due, or ''",
    tick_p1_ms: "tick+1 of a requeued cron template ('-inf': unreadable, overdue), or ''",
    gate: "JSON of the copy's gate when it holds a trigger value, or ''",
    sync: "JSON of the copy's sync when it is not empty, or ''",
    root_id: "the copy's root object id, or ''",
    children: "JSON array of the tasks its handler spawned (each a spawned array), or ''",
  },
  folded_search: {
    now_ms: "search's now_ms (the deletes' instant too)",
    worker: "search's worker",
    expiry: "search's expiry",
    expiry_ms: "search's expiry_ms",
    redeliver: "search's redeliver",
    start_ms: "search's start_ms",
    exclude: "search's exclude",
    self_key: "search's self_key",
    request: 'the idempotent request (include/request.lua)',
  },
  delete_search: {
    retention: "how long a deleted task's outcome is kept, ms (0: not kept)",
    most: 'how many outcomes the queue keeps at most',
  },
  folded_delete: {
    id: "the copy's object id",
    worker: "the copy's core worker, or ''",
    token: "the copy's core fencing token, or ''",
    outcome: "delete's outcome",
    rare: "'' (a worker's common completion) or the JSON array delete_rare",
  },
  entry_search: {
    filters: "search's filters",
    filter_ids: "search's filter_ids",
    slot: "search's slot",
    park_until: "search's park_until",
    floors: "search's floors",
    skip: "search's skip",
  },
  expire: {
    now_ms: "the engine's clock, ms since the epoch",
    cutoff: '13-digit creation ms: tasks created before it are past retention',
    batch: 'how many tasks to delete or revoke at most, per kind',
    sweep: 'how many records the sweep reads (0: no sweep)',
    revoke_ms: 'leases that ended at or before it are revoked: now_ms less the clock skew',
    retention: 'how long the outcome of a removed held task is kept, ms (0: not kept)',
    most: 'how many outcomes the queue keeps at most',
    failed: 'how long the outcome of a task a revocation halts is kept, ms (0: not kept)',
    halted_cutoff:
      'halted tasks that halted before it (ms: now_ms less haltedRetention) are past retention',
    owned_after:
      "the `owned` member the run's last call swept up to (its answer), '' in the first: the sweep goes on after it",
  },
  extend: {
    now_ms: "the engine's clock, ms since the epoch",
    id: "the copy's object id",
    worker: "the copy's core worker, or ''",
    expiry: 'formatTime(now + expiry), the new lease end',
    expiry_ms: 'the same in ms',
    token: "the copy's core fencing token, or ''",
  },
  fail: {
    now_ms: "the engine's clock, ms since the epoch",
    id: "the copy's object id",
    worker: "the copy's core worker",
    token: "the copy's core fencing token, or ''",
    state: "'failed' or 'timeout'",
    fields: 'JSON object of the attempt: worker, error, startedAt, log',
    request: 'the idempotent request (include/request.lua)',
  },
  meta_index: {
    keys: 'JSON array of meta keys (exact, non-empty)',
  },
  page: {
    state: 'claimable | owned | waiting | halted | cron | gate | broadcast | held | all',
    query: "JSON of a query the tasks must match, '' for every task",
    limit: 'how many tasks at most',
    position: "where to go on ('' to start): its form by state is in page.lua's header",
    budget: 'how many index entries to read at most',
  },
  pause: {
    now_ms: "the engine's clock, ms since the epoch",
    operation: "'pause' or 'resume' (the whole queue), 'pause-query' or 'resume-query'",
    query_id: "the query's id (lib/engine/filters.ts filterId), or '' for the whole queue",
    query: "JSON of the query ('pause-query'), else ''",
  },
  aside: {
    now_ms: "the engine's clock, ms since the epoch",
    operation: "'sort', 'pause', 'refill', 'drain-key' or 'drain-query' (aside.lua's header)",
    subject: "the meta key, or the paused query's id",
    cursor: "'' to start, else what the last step answered",
  },
  rates: {
    now_ms: "the engine's clock, ms since the epoch",
    operation: "'set' or 'remove'",
    key: "the meta key ('' for the whole queue)",
    claims: "the most claims in a window, a positive integer ('' with remove)",
    window_ms: "the window's length in ms, a positive integer ('' with remove)",
  },
  release: {
    now_ms: "the engine's clock, ms since the epoch",
    id: "the copy's object id",
    worker: "the caller's worker id",
    token:
      "the copy's fencing token, or '' (the worker id alone decides): a later claim is not released",
    state: "'failed' when a handler ran and was cut short, or ''",
    fields: "with state: JSON object of the attempt (fail.lua), else ''",
    hold: "until when (ms) context.rateLimit holds the task's rate-limited values, or ''",
  },
  repair_read: {
    cursor: "HSCAN cursor of the tasks hash, '0' to start",
    count: 'about how many records',
  },
  repair_start: {
    layout: 'the layout version the engine writes',
    retired:
      'JSON array of the keys earlier layouts wrote that this one does not (lib/engine/keys.ts retiredKeyNames)',
  },
  repair_write: {
    now_ms: "the engine's clock, ms since the epoch",
    entries: 'JSON array of [id, record, due ms, tick+1 ms, lease end ms] (repair-write.lua)',
  },
  retry: {
    now_ms: "the engine's clock, ms since the epoch",
    id: "the copy's object id",
    worker: "the copy's core worker",
    token: "the copy's core fencing token, or ''",
    fields: 'JSON object of the attempt: worker, error, startedAt, log',
    due_ms: "when it may run again, ms ('' or <= now: at once)",
    due: "formatTime of due_ms, the task's core retry-at ('' with no due_ms)",
    cancel:
      "the breaker to set: a count N (the lower of it and the stored one), 'now' (halt now), or '' (keep)",
    retention: 'how long the outcome of a task this halts is kept, ms (0: not kept)',
    most: 'how many outcomes the queue keeps at most',
    request: 'the idempotent request (include/request.lua)',
  },
  scan: {
    query: 'JSON of the query',
    cursor:
      "HSCAN cursor ('0' to start), 'c<id>' in a template's children, 'm<id>' under a meta pair",
    budget: 'how many records to read at most',
    first: "'1' to stop at the first match (exists)",
  },
  schedule: {
    now_ms: "the engine's clock, ms since the epoch",
    name: "the schedule's name",
    task: "JSON of the validated template (as create takes it, core naming the schedule), or '' to remove it",
    tick_p1_ms: "the template's tick+1 from its @every at now",
    check_ms: "when its tick-1 may need maintenance, or ''",
    layout: 'the layout version the engine writes',
    request: 'the idempotent request (include/request.lua)',
  },
  search: {
    now_ms: "the engine's clock, ms since the epoch",
    worker: "this engine's worker id",
    expiry: 'formatTime(now + expiry): the lease end of a claim',
    expiry_ms: 'the same in ms',
    filters: "JSON array of the filters' JSON texts, tried in turn, or '' (no filter)",
    floors:
      "'<floor>:<base>': broadcast tasks settled for this engine (lib/engine/broadcast-ledger.ts)",
    skip: "JSON array of broadcast ids above the floor this engine received, or ''",
    redeliver: "JSON array of broadcast ids it received whose local lease ended, or ''",
    start_ms: "the engine's start instant: older broadcast tasks are not for it",
    exclude: "JSON array of ids not to claim (the worker runtime's declined tasks), or ''",
    self_key: 'where the worker sorts among the owners (lib/engine/keys.ts workerOrderKey)',
    resume: "where the pick resumes: '' (the start), or what a 'more' answer said",
    filter_ids: "the filters' ids (lib/engine/filters.ts), each followed by ','",
    slot: "the worker runtime's slot that searches, or ''",
    park_until: "'' or a deadline (ms): with no work, the slot parks until then",
    request:
      'the idempotent request (include/request.lua), `r` before it when it may have run already (search.lua: only such a send looks for a kept answer)',
  },
  stats: {
    now_ms: "the engine's clock, ms since the epoch",
    owners: 'about how many owners to name (HSCAN COUNT of `owners`)',
    targets: 'how many target workers of `ready-uni` to look at for the oldest claimable task',
    workers:
      'JSON array of the live workers: { "w": id, "a": true when it takes any task, "f": [filters] }',
    sample: 'how many claimable tasks to check against the workers at most',
    flow: 'how many fields of `cap-counts`, and how many open windows of `rate-windows`, to read at most (docs/semantics.md §3.15, §3.16)',
  },
  status: {
    id: "the task's object id",
  },
  ticker: {
    now_ms: "the engine's clock, ms since the epoch",
    entries: "JSON array of the templates' ticks (ticker.lua's header)",
  },
  ticker_due: {
    now_ms: "the engine's clock, ms since the epoch",
    limit: 'how many templates at most',
  },
  unpark: {
    now_ms: "the engine's clock, ms since the epoch",
    worker: "this engine's worker id (the slots follow: one argument each)",
  },
  withdraw: {
    now_ms: "the engine's clock, ms since the epoch",
    id: "the task's object id",
    request: 'the idempotent request (include/request.lua)',
  },
} as const satisfies Record<string, Record<string, string>>;

/** ArgumentList names one list of scriptArguments. */
export type ArgumentList = keyof typeof scriptArguments;

/**
 * ArgumentValues are the values of a list's arguments by name: a missing or an
 * unknown name is a compile error where an object literal is passed.
 */
export type ArgumentValues<List extends ArgumentList> = {
  -readonly [Name in keyof (typeof scriptArguments)[List]]: string | number;
};

/** The names of each list, in order (Object.keys keeps the declaration's order). */
const namesOf: Readonly<Record<string, readonly string[]>> = Object.fromEntries(
  Object.entries(scriptArguments).map(([list, names]) => [list, Object.keys(names)]),
);

/** argumentNames: a list's names in the order a call passes them. */
export function argumentNames(list: ArgumentList): readonly string[] {
  return namesOf[list] ?? [];
}

/** argv writes a list's values in its order: the ARGV of a call, or a part of it. */
export function argv<List extends ArgumentList>(
  list: List,
  values: ArgumentValues<List>,
): (string | number)[] {
  const named = values as Readonly<Record<string, string | number>>;
  return argumentNames(list).map((name) => named[name] as string | number);
}

/** argumentValues reads a list's values back from the array argv wrote (a JSON array passed along). */
export function argumentValues<List extends ArgumentList>(
  list: List,
  values: readonly unknown[],
): ArgumentValues<List> {
  return Object.fromEntries(
    argumentNames(list).map((name, index) => [name, values[index] ?? '']),
  ) as ArgumentValues<List>;
}

/**
 * Arguments no script reads, on purpose (spec/engine/lua.spec.ts): `<list>.<name>`.
 */
export const unreadArguments: ReadonlySet<string> = new Set([
  // every script is given the clock; these have no rule that reads it
  'caps.now_ms',
  'caps_list.now_ms',
  'rates.now_ms',
  'unpark.now_ms',
  // the lean form's mark: create.lua tells the forms apart by create's task
  'create_lean.task',
]);
