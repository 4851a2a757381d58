// Stops the redis-server the global setup started (never an external one).
export default async function globalTeardown() {
  await globalThis.rescueRedisServer?.stop();
}
