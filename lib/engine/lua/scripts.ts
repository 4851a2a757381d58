import { fromReply } from '../../errors.js';
import type { RedisClient } from '../connection.js';
import type { QueueKeys } from '../keys.js';
import { ScriptCommand, ScriptHead, type Resend, type ScriptCall } from './command.js';
import {
  isFunctionMissing,
  isFunctionsRefused,
  loadLibrary,
  useEval,
  usesFunctions,
} from './functions.js';
import {
  defaultVariant,
  loadScript,
  passedKey,
  type LoadedScript,
  type ScriptVariant,
} from './loader.js';

/** The file name of each script, by the name the engine calls it. */
const scriptFiles = {
  create: 'create',
  createMany: 'create-many',
  search: 'search',
  delete: 'delete',
  deleteSearch: 'delete-search',
  completeClaim: 'complete-claim',
  extend: 'extend',
  cycles: 'cycles',
  release: 'release',
  fail: 'fail',
  retry: 'retry',
  withdraw: 'withdraw',
  cancel: 'cancel',
  status: 'status',
  unpark: 'unpark',
  repairStart: 'repair-start',
  repairRead: 'repair-read',
  repairWrite: 'repair-write',
  expire: 'expire',
  scan: 'scan',
  metaIndex: 'meta-index',
  stats: 'stats',
  page: 'page',
  tickerDue: 'ticker-due',
  ticker: 'ticker',
  aclCheck: 'acl-check',
  schedule: 'schedule',
  pause: 'pause',
  caps: 'caps',
  capsList: 'caps-list',
  rates: 'rates',
  aside: 'aside',
} as const;

function loadAll(variant: ScriptVariant): Record<keyof typeof scriptFiles, LoadedScript> {
  return Object.fromEntries(
    Object.entries(scriptFiles).map(([name, file]) => [name, loadScript(file, variant)]),
  ) as Record<keyof typeof scriptFiles, LoadedScript>;
}

/**
 * The engine's scripts, assembled once at module load, for a single server
 * (the queue's signal goes out with PUBLISH). Each is passed the queue's
 * `tasks` key, names the others from it (KEYS in `keyNames` order, loader.ts),
 * and receives its own ARGV, documented in the header of its .lua file.
 */
export const scripts = loadAll(defaultVariant);

/** The same scripts for a Redis Cluster: the signal goes out with SPUBLISH (sharded pub/sub). */
export const shardedScripts = loadAll({ ...defaultVariant, sharded: true });

/** The sets of other variants (an engine's own `stepTime`), assembled on first use. */
const otherSets = new Map<string, typeof scripts>();

/**
 * scriptsFor picks the set for a connection, sharded on a cluster, whose
 * bounded steps run at most `stepMicros` (the engine's `stepTime`).
 */
export function scriptsFor(
  sharded: boolean,
  stepMicros: number = defaultVariant.stepMicros,
): typeof scripts {
  if (stepMicros === defaultVariant.stepMicros) return sharded ? shardedScripts : scripts;
  const name = `${sharded ? 's' : 'p'}${stepMicros}`;
  let set = otherSets.get(name);
  if (set === undefined) otherSets.set(name, (set = loadAll({ sharded, stepMicros })));
  return set;
}

/** loadedScriptSets lists every set assembled so far: the two above first. */
export function loadedScriptSets(): (typeof scripts)[] {
  return [scripts, shardedScripts, ...otherSets.values()];
}

export type ScriptName = keyof typeof scripts;

/** ScriptSet is one assembled set of the engine's scripts, by name. */
export type ScriptSet = typeof scripts;

/** The encoded heads of the scripts' calls (FCALL or EVALSHA), per queue. */
const heads = new WeakMap<QueueKeys, Map<string, ScriptHead>>();

function headOf(script: LoadedScript, keys: QueueKeys, command: ScriptCall): ScriptHead {
  let byScript = heads.get(keys);
  if (byScript === undefined) heads.set(keys, (byScript = new Map<string, ScriptHead>()));
  const name = command === 'fcall' ? script.library.name : script.sha;
  let head = byScript.get(name);
  if (head === undefined)
    byScript.set(name, (head = new ScriptHead(command, name, [passedKey(keys)])));
  return head;
}

/**
 * runScript runs a script as a Redis function (FCALL; functions.ts loads its
 * library when the server does not know it), or, for a client that may not
 * use functions, with EVALSHA and, when the server does not know the script
 * (first use, SCRIPT FLUSH, a restart), EVAL, which also caches it. Error
 * replies that carry one of our codes become RescueErrors.
 */
export async function runScript(
  client: RedisClient,
  script: LoadedScript,
  keys: QueueKeys,
  args: (string | number)[],
  resend?: Resend,
): Promise<unknown> {
  const argv = args.map(String);
  // every command after the first is sent once the first was written
  const again = () => {
    if (resend !== undefined) argv[resend.index] = resend.value;
  };
  if (usesFunctions(client)) {
    try {
      return await callFunction(client, script, keys, argv, resend, again);
    } catch (error) {
      if (!isFunctionsRefused(error)) throw fromReply(error);
      useEval(client);
      again();
    }
  }
  try {
    return await client.sendCommand(
      new ScriptCommand(headOf(script, keys, 'evalsha'), argv, resend),
    );
  } catch (error) {
    if (error instanceof Error && error.message.startsWith('NOSCRIPT')) {
      again();
      try {
        return await client.eval(script.source, 1, passedKey(keys), ...argv);
      } catch (retryError) {
        throw fromReply(retryError);
      }
    }
    throw fromReply(error);
  }
}

async function callFunction(
  client: RedisClient,
  script: LoadedScript,
  keys: QueueKeys,
  argv: string[],
  resend: Resend | undefined,
  again: () => void,
): Promise<unknown> {
  const call = () =>
    client.sendCommand(
      new ScriptCommand(headOf(script, keys, 'fcall'), argv, resend),
    ) as Promise<unknown>;
  try {
    return await call();
  } catch (error) {
    if (!isFunctionMissing(error)) throw error;
    await loadLibrary(client, script.library);
    again();
    return await call();
  }
}
