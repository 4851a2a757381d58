// Where a queue lives on a Redis Cluster: every key of a queue carries the
// hash tag `{<queue>}`, so the tag alone decides the slot, and the slot the
// primary. These helpers pick queue names that land on a chosen primary.

/**
 * primaries lists the cluster's primaries from CLUSTER SLOTS, ordered by port:
 * `{ host, port, ranges: [[from, to], ...] }`.
 */
export async function primaries(cluster) {
  const byPort = new Map();
  for (const [from, to, [host, port]] of await cluster.call('CLUSTER', 'SLOTS')) {
    const primary = byPort.get(port) ?? { host, port, ranges: [] };
    primary.ranges.push([from, to]);
    byPort.set(port, primary);
  }
  return [...byPort.values()].sort((a, b) => a.port - b.port);
}

/** slotOf asks Redis for the slot of a queue's keys (the slot of its hash tag). */
export async function slotOf(cluster, queue) {
  return Number(await cluster.call('CLUSTER', 'KEYSLOT', `{${queue}}`));
}

const owns = (primary, slot) => primary.ranges.some(([from, to]) => from <= slot && slot <= to);

/** nameOn returns the first of `<base>-0`, `<base>-1`, ... whose slot the primary serves. */
export async function nameOn(cluster, primary, base) {
  for (let attempt = 0; attempt < 1_000; attempt++) {
    const name = `${base}-${attempt}`;
    if (owns(primary, await slotOf(cluster, name))) return name;
  }
  throw new Error(`no name ${base}-<n> hashes to the primary on port ${primary.port}`);
}

/**
 * dropKeys deletes every key starting with `prefix` (a queue's keyfmt()):
 * on each primary of a Cluster, or on a single server.
 */
export async function dropKeys(client, prefix) {
  const nodes = client.isCluster ? client.nodes('master') : [client];
  const pattern = `${prefix.replace(/[?*[\]\\]/g, '\\$&')}:*`;
  for (const node of nodes) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      // One queue's keys share a slot, so one DEL may take them all.
      if (keys.length > 0) await node.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  }
}
