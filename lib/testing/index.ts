/**
 * rescue-engine/testing: helpers for tests that need a real Redis.
 *
 * @module rescue-engine/testing
 */
export { startRedisServer } from './redis-server.js';
export type { RedisServer, StartRedisOptions } from './redis-server.js';
export { replicate } from './replication.js';
export { startRedisCluster } from './redis-cluster.js';
export type { RedisCluster, StartRedisClusterOptions } from './redis-cluster.js';
