// Starts one redis-server for the whole conformance run (or uses REDIS_URL /
// REDIS_PORT) and hands its URL to the test workers through REDIS_URL. Jest
// loads this file outside its module system, so it imports the built launcher;
// `npm test` builds before it runs Jest.
import { existsSync } from 'node:fs';

const built = new URL('../../dist/testing/index.js', import.meta.url);

export default async function globalSetup() {
  if (!existsSync(built)) {
    throw new Error('dist/ is missing: run `npm run build` (npm test does it for you)');
  }
  const { startRedisServer } = await import(built.href);
  const server = await startRedisServer();
  globalThis.rescueRedisServer = server;
  process.env.REDIS_URL = server.url;
}
