import { fromReply } from '../../errors.js';
import type { RedisClient } from '../connection.js';
import type { QueueKeys } from '../keys.js';
import { ScriptCommand, ScriptHead } from './command.js';
import { loadScript, type LoadedScript } from './loader.js';

/**
 * The engine's scripts, assembled once at module load. Each receives every key
 * of the queue (KEYS in `keyNames` order) and its own ARGV, documented in the
 * header of its .lua file.
 */
export const scripts = {
  create: loadScript('create'),
  search: loadScript('search'),
  delete: loadScript('delete'),
  deleteSearch: loadScript('delete-search'),
  extend: loadScript('extend'),
  cycles: loadScript('cycles'),
  release: loadScript('release'),
  fail: loadScript('fail'),
  withdraw: loadScript('withdraw'),
  cancel: loadScript('cancel'),
  status: loadScript('status'),
  unpark: loadScript('unpark'),
  repairStart: loadScript('repair-start'),
  repairRead: loadScript('repair-read'),
  repairWrite: loadScript('repair-write'),
  expire: loadScript('expire'),
  scan: loadScript('scan'),
  tickerDue: loadScript('ticker-due'),
  ticker: loadScript('ticker'),
} as const;

export type ScriptName = keyof typeof scripts;

/** The encoded heads of the scripts' EVALSHA, per queue. */
const heads = new WeakMap<QueueKeys, Map<string, ScriptHead>>();

function headOf(script: LoadedScript, keys: QueueKeys): ScriptHead {
  let byScript = heads.get(keys);
  if (byScript === undefined) heads.set(keys, (byScript = new Map<string, ScriptHead>()));
  let head = byScript.get(script.sha);
  if (head === undefined) byScript.set(script.sha, (head = new ScriptHead(script.sha, keys.all)));
  return head;
}

/**
 * runScript runs a script with EVALSHA and, when the server does not know it
 * (first use, SCRIPT FLUSH, a restart), with EVAL, which also caches it.
 * Error replies that carry one of our codes become RescueErrors.
 */
export async function runScript(
  client: RedisClient,
  script: LoadedScript,
  keys: QueueKeys,
  args: (string | number)[],
): Promise<unknown> {
  try {
    return await client.sendCommand(new ScriptCommand(headOf(script, keys), args.map(String)));
  } catch (error) {
    if (error instanceof Error && error.message.startsWith('NOSCRIPT')) {
      try {
        return await client.eval(script.source, keys.all.length, ...keys.all, ...args);
      } catch (retryError) {
        throw fromReply(retryError);
      }
    }
    throw fromReply(error);
  }
}
