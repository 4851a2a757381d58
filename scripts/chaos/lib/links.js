// The TCP links of the failover scenario, on loopback only.
//
// startLagLink sits on the replication link between a primary and its
// replica: what the primary sends is held for `lagMs` before it goes on (the
// replica's acknowledgements go back at once), so the replica really lags;
// sever() drops what it holds and cuts the link, as a primary that dies does
// to the bytes it had not sent yet.
//
// startServiceAddress is the address every engine connects to (what a
// virtual IP or a Sentinel-aware client gives): it forwards to the current
// primary, and pointTo() sends new connections elsewhere and cuts the old ones.
import { createConnection, createServer } from 'node:net';

async function listen(server) {
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server.address().port;
}

export async function startLagLink(target, lagMs) {
  const links = new Set();
  let severed = false;
  const server = createServer((replica) => {
    if (severed) {
      replica.destroy();
      return;
    }
    const primary = createConnection({ host: target.host, port: target.port });
    const link = { replica, primary, held: [] };
    links.add(link);
    const close = () => {
      links.delete(link);
      link.held = [];
      replica.destroy();
      primary.destroy();
    };
    replica.on('data', (chunk) => primary.write(chunk));
    primary.on('data', (chunk) => link.held.push({ at: performance.now() + lagMs, chunk }));
    for (const socket of [replica, primary]) {
      socket.on('error', close);
      socket.on('close', close);
    }
  });
  server.on('error', () => {});
  const timer = setInterval(() => {
    const at = performance.now();
    for (const link of links) {
      while (link.held.length > 0 && link.held[0].at <= at)
        link.replica.write(link.held.shift().chunk);
    }
  }, 2);
  const port = await listen(server);
  return {
    host: '127.0.0.1',
    port,
    /** held is how many bytes the link holds right now. */
    held: () =>
      [...links].reduce((sum, link) => sum + link.held.reduce((s, h) => s + h.chunk.length, 0), 0),
    /** sever drops every byte held and cuts the link for good. */
    sever() {
      severed = true;
      clearInterval(timer);
      for (const link of links) {
        link.held = [];
        link.replica.destroy();
        link.primary.destroy();
      }
      links.clear();
    },
    async close() {
      this.sever();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

export async function startServiceAddress(target) {
  let current = target;
  const links = new Set();
  const server = createServer((client) => {
    const upstream = createConnection({ host: current.host, port: current.port });
    const link = { client, upstream };
    links.add(link);
    const close = () => {
      links.delete(link);
      client.destroy();
      upstream.destroy();
    };
    client.pipe(upstream);
    upstream.pipe(client);
    for (const socket of [client, upstream]) {
      socket.on('error', close);
      socket.on('close', close);
    }
  });
  server.on('error', () => {});
  const port = await listen(server);
  return {
    url: `redis://127.0.0.1:${port}`,
    /** pointTo sends new connections to `next` and cuts every open one. */
    pointTo(next) {
      current = next;
      for (const { client, upstream } of links) {
        client.destroy();
        upstream.destroy();
      }
      links.clear();
    },
    async close() {
      this.pointTo(current);
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
