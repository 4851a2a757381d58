#!/usr/bin/env node
// The cost of durability 'replica' per call (npm run bench:durability): a
// primary and a replica attached directly on loopback; creates one after
// another (the latency each call pays) and with 64 in flight (throughput),
// with durability 'primary' and 'replica'.
import { Redis } from 'ioredis';
import { Engine } from '../../dist/index.js';
import { replicate, startRedisServer } from '../../dist/testing/index.js';
import { inParallel, machineFacts } from './lib/setup.js';
import { number, table } from './lib/report.js';

const sequential = 2_000;
const concurrent = 20_000;
const primary = await startRedisServer({ env: {} });
const replica = await startRedisServer({ env: {} });
const admin = new Redis(replica.url);
await replicate(replica, primary);
const version = /redis_version:(\S+)/.exec(await admin.info('server'))?.[1] ?? 'unknown';

const rows = [];
for (const durability of ['primary', 'replica']) {
  const engine = new Engine({ redis: primary.url, queue: `bench-${durability}`, durability });
  await engine.create({ meta: { warm: 'up' } });
  let started = performance.now();
  for (let n = 0; n < sequential; n++) await engine.create({ meta: { n: String(n) } });
  const latencyUs = ((performance.now() - started) * 1000) / sequential;
  started = performance.now();
  await inParallel(64, concurrent, (n) => engine.create({ meta: { n: String(n) } }));
  const perSecond = concurrent / ((performance.now() - started) / 1000);
  rows.push([durability, `${number(latencyUs)} µs`, `${number(perSecond)} /s`]);
  await engine.close();
}
console.log(
  `${table(['durability', 'create, one after another', 'creates, 64 in flight'], rows)}\n\n` +
    `Measured ${machineFacts(version).line}; ${number(sequential)} sequential and ${number(concurrent)} concurrent creates, replica on loopback`,
);
admin.disconnect();
await replica.stop();
await primary.stop();
