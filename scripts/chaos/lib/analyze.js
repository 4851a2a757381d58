// The analysis of a chaos run: from the records of every process (see
// worker.js, producer.js, fleet.js and run.js for what each writes), the
// counts of docs/reliability.md. Pure: records in, counts out.

/**
 * analyze counts, for one run:
 *
 *   created      creates acknowledged to the producer
 *   completed    acknowledged creates whose task is gone after a run of it
 *                ended (the delete's answer may have been lost: a killed
 *                process, or a resent delete that found the task gone)
 *   lost         acknowledged creates with no completed task and none left
 *   duplicated   tasks beyond one per create (two tasks with one `n`), plus
 *                tasks stored for a create that was not acknowledged
 *   overlaps     pairs of runs of one task that both worked while both were
 *                live: a run is live from its start until it ended, aborted,
 *                was told it lost the task, or its process was killed, but not
 *                while its process was stopped (SIGSTOP); the pair counts when
 *                the older run (whose claim the newer one replaced) began a
 *                step of work in the time both were live
 *   pastLease    runs that began a step after their lease (as last renewed)
 *                had ended: from then on expire may hand the task to another
 *   staleWrites  deletes and extends that succeeded although another run of
 *                the task had started after this run's lease ended
 *   completionsReportedLost  runs that ended and whose task is gone, no other
 *                run's delete removed it, but the worker was told it lost the
 *                task (a resent delete that found it gone)
 *   rerunsAfterDone  runs of a task that started after its delete was acknowledged
 *   claimsNotRun revocations of claims no run belonged to: a resent
 *                search's orphan claim, or a process killed or stopped between
 *                its claim and the start of the handler
 *   rerunMs      for each run in flight in a killed process, ms from the kill
 *                to the next start of its task (sorted)
 */
export function analyze(records) {
  const runs = new Map();
  const kills = new Map();
  const stops = new Map();
  const acked = new Map();
  const unacked = new Set();
  const idsByN = new Map();
  const nById = new Map();
  const left = new Map();
  const done = new Map();
  let endAt = 0;

  const noteId = (n, id) => {
    if (n === undefined || id === undefined) return;
    if (!idsByN.has(n)) idsByN.set(n, new Set());
    idsByN.get(n).add(id);
    nById.set(id, n);
  };
  const runOf = (record) => runs.get(record.run);

  for (const record of records) {
    endAt = Math.max(endAt, record.at ?? 0);
    switch (record.t) {
      case 'ack':
        acked.set(record.n, record);
        noteId(record.n, record.id);
        break;
      case 'create-error':
      case 'create-pending':
        unacked.add(record.n);
        break;
      case 'start':
        runs.set(record.run, { ...record, worker: record.p, extends: [] });
        noteId(record.n, record.id);
        break;
      case 'kill':
        if (!kills.has(record.worker)) kills.set(record.worker, record.at);
        break;
      case 'sigstop':
        if (!stops.has(record.worker)) stops.set(record.worker, []);
        stops.get(record.worker).push([record.at, Infinity]);
        break;
      case 'sigcont': {
        const open = stops.get(record.worker)?.at(-1);
        if (open !== undefined) open[1] = record.at;
        break;
      }
      case 'left':
        left.set(record.id, record);
        noteId(record.n, record.id);
        break;
      default:
    }
  }
  // the records that belong to a run, once every run is known
  for (const record of records) {
    const run = runOf(record);
    if (run === undefined) continue;
    if (record.t === 'told' || record.t === 'abort' || record.t === 'end') {
      run[record.t] ??= record.at;
      if (record.steps !== undefined) run.steps = record.steps;
    } else if (record.t === 'extend' && record.ok) {
      run.extends.push(record);
    } else if (record.t === 'lost') {
      run.lost ??= record.at;
    } else if (record.t === 'done') {
      run.done = record.at;
      if (!done.has(run.id) || done.get(run.id) > record.at) done.set(run.id, record.at);
    }
  }

  const byTask = new Map();
  for (const run of runs.values()) {
    if (!byTask.has(run.id)) byTask.set(run.id, []);
    byTask.get(run.id).push(run);
  }
  for (const list of byTask.values()) list.sort((a, b) => a.at - b.at);

  const liveSegments = (run) => {
    const killedAt = kills.get(run.worker);
    const ends = [run.end, run.abort, run.told, killedAt > run.at ? killedAt : undefined];
    const until = Math.min(...ends.filter((at) => at !== undefined), endAt);
    return subtract([[run.at, until]], stops.get(run.worker) ?? []);
  };

  // completed: a task that is gone after a run of it ended (its delete was
  // acknowledged, or its answer was lost: a process killed before it came, or
  // a resent delete that found the task gone and said so)
  const completedIds = new Set();
  let completionsReportedLost = 0;
  for (const run of runs.values()) {
    if (run.end === undefined || left.has(run.id)) continue;
    completedIds.add(run.id);
    // its delete removed the task though it was told otherwise: no other run's delete did
    if (run.done === undefined && run.lost >= run.end && !done.has(run.id)) {
      completionsReportedLost++;
    }
  }

  let completed = 0;
  let lost = 0;
  for (const n of acked.keys()) {
    const ids = [...(idsByN.get(n) ?? [])];
    if (ids.some((id) => completedIds.has(id))) completed++;
    else if (!ids.some((id) => left.has(id))) lost++;
  }
  let duplicated = 0;
  for (const [n, ids] of idsByN) {
    duplicated += acked.has(n) ? ids.size - 1 : ids.size;
  }

  let overlaps = 0;
  let overlapMs = 0;
  let pastLease = 0;
  let pastLeaseMs = 0;
  let staleWrites = 0;
  let rerunsAfterDone = 0;
  for (const [id, list] of byTask) {
    const segments = list.map(liveSegments);
    for (let a = 0; a < list.length; a++) {
      for (let b = a + 1; b < list.length; b++) {
        const shared = intersect(segments[a], segments[b]);
        // by effects: the older run (the claim another replaced) began a step
        // while both were live; a run killed before it wrote its steps counts
        // as working all along. The newer run's steps alone are no double
        // work: it is the owner, and the older one did nothing meanwhile.
        const older = list[a].at <= list[b].at ? list[a] : list[b];
        const effect = older.steps === undefined || older.steps.some((at) => inside(shared, at));
        if (shared.length > 0 && effect) {
          overlaps++;
          overlapMs = Math.max(overlapMs, length(shared));
        }
      }
    }
    for (const run of list) {
      if (isStale(run, list)) staleWrites++;
      const past = pastLeaseBy(run);
      if (past > 0) {
        pastLease++;
        pastLeaseMs = Math.max(pastLeaseMs, past);
      }
    }
    const doneAt = done.get(id);
    if (doneAt !== undefined) rerunsAfterDone += list.filter((run) => run.at > doneAt).length;
  }

  // claims nobody ran: every revocation counts a cycle, and a run sees the
  // count so far. Before the first run, every revocation was of a claim
  // without a run; between two runs, all but the earlier run's own one.
  let claimsNotRun = 0;
  for (const list of byTask.values()) {
    list.forEach((run, index) => {
      const before = index === 0 ? 0 : (list[index - 1].cycles ?? 0) + 1;
      claimsNotRun += Math.max(0, (run.cycles ?? 0) - before);
    });
  }

  const rerunMs = [];
  let notRerun = 0;
  for (const [worker, killedAt] of kills) {
    for (const run of runs.values()) {
      if (run.worker !== worker || run.at > killedAt) continue;
      const finished = [run.end, run.abort, run.told].some(
        (at) => at !== undefined && at < killedAt,
      );
      if (finished) continue;
      const next = byTask.get(run.id).find((other) => other.at > killedAt);
      if (next === undefined) notRerun++;
      else rerunMs.push(next.at - killedAt);
    }
  }
  rerunMs.sort((a, b) => a - b);

  return {
    created: acked.size,
    completed,
    lost,
    duplicated,
    unacknowledged: unacked.size,
    left: left.size,
    runs: runs.size,
    overlaps,
    overlapMs,
    pastLease,
    pastLeaseMs,
    staleWrites,
    completionsReportedLost,
    rerunsAfterDone,
    claimsNotRun,
    rerunMs,
    notRerun,
    lostNs: [...acked.keys()].filter(
      (n) => ![...(idsByN.get(n) ?? [])].some((id) => completedIds.has(id) || left.has(id)),
    ),
  };
}

/** leaseAt is when the run's lease ended as of `at`: the claim's, or the last renewal acknowledged by then. */
function leaseAt(run, at) {
  let end = run.lease;
  for (const extend of run.extends) if (extend.at <= at) end = Math.max(end, extend.lease);
  return end;
}

/** pastLeaseBy is how far past its lease end (ms) the run's last step began; 0 when none did. */
function pastLeaseBy(run) {
  let most = 0;
  for (const at of run.steps ?? []) most = Math.max(most, at - leaseAt(run, at));
  return most;
}

/**
 * isStale: a successful extend or delete of the run when another run of the
 * task started after the run's lease (as last renewed before the write was
 * sent) ended and before the write succeeded: the write should have been
 * refused. (A write sent in time but executed late counts too.)
 */
function isStale(run, list) {
  const writes = run.extends.map((extend) => ({ sent: extend.sent, at: extend.at }));
  if (run.done !== undefined) writes.push({ sent: run.end ?? run.done, at: run.done });
  return writes.some((write) => {
    const leaseEnd = leaseAt(run, write.sent);
    return list.some((other) => other !== run && other.at > leaseEnd && other.at < write.at);
  });
}

/** subtract removes the gaps (sorted or not) from the intervals. */
export function subtract(intervals, gaps) {
  let result = intervals;
  for (const [from, to] of gaps) {
    result = result.flatMap(([start, end]) => {
      if (to <= start || from >= end) return [[start, end]];
      const pieces = [];
      if (from > start) pieces.push([start, from]);
      if (to < end) pieces.push([to, end]);
      return pieces;
    });
  }
  return result;
}

/** intersect returns the intervals two interval lists share (non-empty ones only). */
export function intersect(first, second) {
  const shared = [];
  for (const [a, b] of first) {
    for (const [c, d] of second) {
      const from = Math.max(a, c);
      const to = Math.min(b, d);
      if (to > from) shared.push([from, to]);
    }
  }
  return shared;
}

/** length is the total length of intervals. */
export function length(intervals) {
  return intervals.reduce((total, [from, to]) => total + to - from, 0);
}

function inside(intervals, at) {
  return intervals.some(([from, to]) => at >= from && at <= to);
}

/** percentile of sorted values (nearest rank); undefined when there are none. */
export function percentile(sorted, p) {
  if (sorted.length === 0) return undefined;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}
