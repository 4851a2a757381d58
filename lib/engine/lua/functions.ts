import type { Redis } from 'ioredis';
import { isClusterClient, type RedisClient } from '../connection.js';
import type { ScriptLibrary } from './loader.js';

/**
 * Redis functions (FUNCTION LOAD, FCALL, Redis 7): each script is also a
 * library of one function (loader.ts assembleLibrary), whose includes are
 * defined once when it loads instead of on every call as with EVAL. The
 * engine calls FCALL; when the server does not know the function (first use,
 * FUNCTION FLUSH, a node that lost it) it loads the library, on a cluster on
 * every primary, and calls again. A client whose user may not run FCALL or
 * FUNCTION LOAD (an ACL without them, a managed Redis that forbids
 * functions) runs the scripts with EVALSHA and EVAL from then on.
 */

/** Clients that run the scripts with EVALSHA / EVAL. */
const evalClients = new WeakSet<object>();
/** Libraries being loaded, per client: one FUNCTION LOAD for all the calls that missed them. */
const loads = new WeakMap<object, Map<string, Promise<void>>>();

/** usesFunctions says whether scripts run on this client as functions (FCALL). */
export function usesFunctions(client: RedisClient): boolean {
  return !evalClients.has(client);
}

/** useEval makes the client run its scripts with EVALSHA / EVAL from now on. */
export function useEval(client: RedisClient): void {
  evalClients.add(client);
}

/** isFunctionMissing: the server does not know the function FCALL named. */
export function isFunctionMissing(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('ERR Function not found');
}

/**
 * isFunctionsRefused: the server will not run FCALL or FUNCTION LOAD for this
 * user (ACL), or does not know them. An error of the script itself (a NOPERM
 * for a key it touches, say) is not this.
 */
export function isFunctionsRefused(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return (
    /^NOPERM .*'(fcall|function\|load)' command/.test(error.message) ||
    /^ERR unknown (command|subcommand) '(fcall|load|function)'/i.test(error.message)
  );
}

/** loadLibrary loads a library on the client's server (every primary of a cluster). */
export function loadLibrary(client: RedisClient, library: ScriptLibrary): Promise<void> {
  let pending = loads.get(client);
  if (pending === undefined) loads.set(client, (pending = new Map<string, Promise<void>>()));
  let load = pending.get(library.name);
  if (load === undefined) {
    load = loadOnEveryPrimary(client, library).finally(() => pending.delete(library.name));
    pending.set(library.name, load);
  }
  return load;
}

async function loadOnEveryPrimary(client: RedisClient, library: ScriptLibrary): Promise<void> {
  const nodes: (Redis | RedisClient)[] = isClusterClient(client)
    ? client.nodes('master')
    : [client];
  await Promise.all(
    nodes.map(async (node) => {
      try {
        await node.call('FUNCTION', 'LOAD', library.source);
      } catch (error) {
        // another call, process or engine loaded it first
        if (!(error instanceof Error && /already exists/.test(error.message))) throw error;
      }
    }),
  );
}
