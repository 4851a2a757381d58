import type { Command } from 'ioredis';
import type { RedisClient } from '../../lib/engine/connection.js';
import { scripts, shardedScripts } from '../../lib/engine/lua/scripts.js';
import { engineClient } from './redis.js';

/** CountingClient tells how many times Redis ran each of the engine's scripts for one client. */
export interface CountingClient {
  readonly client: RedisClient;
  /** how many scripts ran, in all or of one name (a key of lib/engine/lua/scripts.ts) */
  scripts: (name?: string) => number;
  reset: () => void;
}

// both sets: a Cluster client runs the sharded one
const named = [...Object.entries(scripts), ...Object.entries(shardedScripts)];
const nameBySha = new Map(named.map(([name, script]) => [script.sha, name]));
const nameByFunction = new Map(named.map(([name, script]) => [script.library.name, name]));
const nameBySource = new Map(named.map(([name, script]) => [script.source, name]));

/** The script each call names, by how it names it. */
const scriptNames: Record<string, Map<string, string> | undefined> = {
  fcall: nameByFunction,
  evalsha: nameBySha,
  eval: nameBySource,
};

/**
 * countingClient is a client that counts the scripts Redis ran for it: an
 * FCALL whose function was not loaded yet, or an EVALSHA that came back with
 * NOSCRIPT, is not counted (the call after the load, or the EVAL, is), and a
 * command the offline queue sends again once connected is counted once.
 */
export function countingClient(): CountingClient {
  const client = engineClient();
  const counts = new Map<string, number>();
  const seen = new WeakSet<Command>();
  const send = client.sendCommand.bind(client);
  client.sendCommand = (command: Command, stream?: never) => {
    const lookup = scriptNames[command.name];
    if (lookup !== undefined && !seen.has(command)) {
      seen.add(command);
      const name = lookup.get(String(command.args[0])) ?? 'other';
      command.promise.then(
        () => counts.set(name, (counts.get(name) ?? 0) + 1),
        () => {},
      );
    }
    return send(command, stream);
  };
  return {
    client,
    scripts: (name) =>
      name === undefined
        ? [...counts.values()].reduce((sum, count) => sum + count, 0)
        : (counts.get(name) ?? 0),
    reset: () => counts.clear(),
  };
}
