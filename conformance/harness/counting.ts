import type { Command } from 'ioredis';
import type { RedisClient } from '../../lib/engine/connection.js';
import { loadedScriptSets } from '../../lib/engine/lua/scripts.js';
import { engineClient } from './redis.js';

/** CountingClient tells how many times Redis ran each of the engine's scripts for one client. */
export interface CountingClient {
  readonly client: RedisClient;
  /** how many scripts ran, in all or of one name (a key of lib/engine/lua/scripts.ts) */
  scripts: (name?: string) => number;
  reset: () => void;
}

const nameBySha = new Map<string, string>();
const nameByFunction = new Map<string, string>();
const nameBySource = new Map<string, string>();

/** learnNames reads the names of every set assembled so far (an engine's own stepTime makes one). */
function learnNames(): void {
  for (const set of loadedScriptSets()) {
    for (const [name, script] of Object.entries(set)) {
      nameBySha.set(script.sha, name);
      nameByFunction.set(script.library.name, name);
      nameBySource.set(script.source, name);
    }
  }
}

/** The script each call names, by how it names it. */
const scriptNames: Record<string, Map<string, string> | undefined> = {
  fcall: nameByFunction,
  evalsha: nameBySha,
  eval: nameBySource,
};

/** nameOf: the script a call names, 'other' for one the engine does not have. */
function nameOf(lookup: Map<string, string>, named: string): string {
  if (!lookup.has(named)) learnNames();
  return lookup.get(named) ?? 'other';
}

/**
 * countingClient is a client that counts the scripts Redis ran for it: an
 * FCALL whose function was not loaded yet, or an EVALSHA that came back with
 * NOSCRIPT, is not counted (the call after the load, or the EVAL, is), and a
 * command the offline queue sends again once connected is counted once. After
 * `reset`, only scripts sent after it count.
 */
export function countingClient(): CountingClient {
  const client = engineClient();
  const counts = new Map<string, number>();
  const seen = new WeakSet<Command>();
  // a script sent before a reset is not counted after it, even when its
  // answer is read later (the event loop may read another connection first)
  let since = 0;
  const send = client.sendCommand.bind(client);
  client.sendCommand = (command: Command, stream?: never) => {
    const lookup = scriptNames[command.name];
    if (lookup !== undefined && !seen.has(command)) {
      seen.add(command);
      const name = nameOf(lookup, String(command.args[0]));
      const sent = since;
      command.promise.then(
        () => sent === since && counts.set(name, (counts.get(name) ?? 0) + 1),
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
    reset: () => {
      counts.clear();
      since++;
    },
  };
}
