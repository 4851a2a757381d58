// rescue-engine/testing: helpers for tests that need a real Redis.
export { startRedisServer } from './redis-server.js';
export type { RedisServer, StartRedisOptions } from './redis-server.js';
