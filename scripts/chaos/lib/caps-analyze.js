// The counting of the caps scenario (scripts/chaos/caps.js), and the tenant
// of each task it creates. Pure: records in, counts out
// (spec/chaos/caps-analyze.spec.ts).

/** The meta key the per-tenant cap is declared for. */
export const tenantKey = 'tenant';
/** The tenants, by how many tasks in 10 carry each (the rest: none). */
const tenantShare = [
  ['hot', 3],
  ['t1', 1.5],
  ['t2', 1.5],
  ['t3', 1.5],
  ['t4', 1.5],
];

/** tenantOf chooses the tenant of task n: 3 in 10 hot, 1.5 in 10 each other one, 1 in 10 none. */
export function tenantOf(n) {
  let slot = ((n * 7) % 20) / 2; // spreads the tenants over the sequence
  for (const [tenant, share] of tenantShare) {
    if (slot < share) return tenant;
    slot -= share;
  }
  return undefined;
}

/**
 * analyzeCaps counts (records of scripts/chaos/worker.js, the fleet, the
 * producer's acknowledgements and the tasks left after the drain), from the records of a run (pure), the most runs live
 * at once per tenant and in all, and the instants at which they exceeded the
 * caps. `caps`: { queue, tenant }.
 */
export function analyzeCaps(records, caps) {
  const runs = new Map();
  const kills = new Map();
  const acked = new Map();
  const completed = new Set(); // ids a run of which ended (or whose delete was acknowledged)
  const left = new Set();
  let endAt = 0;
  for (const record of records) {
    endAt = Math.max(endAt, record.at ?? 0);
    if (record.t === 'start') runs.set(record.run, { ...record, worker: record.p });
    else if (record.t === 'kill' && !kills.has(record.worker)) kills.set(record.worker, record.at);
    else if (record.t === 'ack') acked.set(record.n, record.id);
    else if (record.t === 'left') left.add(record.id);
  }
  for (const record of records) {
    const run = runs.get(record.run);
    // a run that ended: its task is gone once the queue drained, though a
    // process killed after the delete may not have logged it done
    if (record.t === 'done' || record.t === 'end') completed.add(record.id);
    if (run === undefined) continue;
    if (record.t === 'told' || record.t === 'abort' || record.t === 'end')
      run[record.t] ??= record.at;
  }
  // +1 at a start, -1 at the end of its life; an end before a start at the same instant
  const points = [];
  for (const run of runs.values()) {
    const killed = kills.get(run.worker);
    const ends = [
      run.end,
      run.abort,
      run.told,
      killed !== undefined && killed > run.at ? killed : undefined,
    ];
    const until = Math.min(...ends.filter((at) => at !== undefined), endAt);
    points.push([run.at, 1, run.tenant], [until, -1, run.tenant]);
  }
  points.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const live = new Map();
  const most = { queue: 0 };
  let all = 0;
  let overQueue = 0;
  let overTenant = 0;
  for (const [, delta, tenant] of points) {
    all += delta;
    if (delta > 0 && all > caps.queue) overQueue++;
    most.queue = Math.max(most.queue, all);
    if (tenant === undefined) continue;
    const count = (live.get(tenant) ?? 0) + delta;
    live.set(tenant, count);
    if (delta > 0 && count > caps.tenant) overTenant++;
    most[tenant] = Math.max(most[tenant] ?? 0, count);
  }
  let lost = 0;
  for (const id of acked.values()) if (!completed.has(id) && !left.has(id)) lost++;
  return {
    runs: runs.size,
    created: acked.size,
    lost,
    left: left.size,
    runsOverQueueCap: overQueue,
    runsOverTenantCap: overTenant,
    mostRuns: most,
  };
}
