import { keyScheme } from '../task/label.js';
import type { QueueKeys } from './keys.js';
import { layoutVersion } from './keys.js';

/**
 * The Redis commands the engine uses, the one list both the documented ACL
 * rule set (aclRules) and doctor()'s ACL check (aclProbes) are made from.
 * spec/engine/acl.spec.ts checks it against the sources: every
 * `redis.call` / `redis.pcall` of lib/engine/lua and of Redlock's scripts,
 * and every command lib/ sends through its client.
 */
export const aclCommands = {
  /** Run by the engine's scripts, on the queue's keys (ACL checks each call inside a script). */
  scripts: [
    'exists', 'get', 'hdel', 'hexists', 'hget', 'hgetall', 'hincrby', 'hkeys', 'hlen',
    'hmget', 'hscan', 'hset', 'hsetnx', 'hstrlen', 'incr', 'incrby', 'lindex', 'lpop', 'lset', 'publish',
    'pubsub|numsub', 'pubsub|shardnumsub', 'rpush', 'set', 'spublish', 'time', 'unlink', 'xadd', 'zadd',
    'zpopmin', 'zcard', 'zcount', 'zlexcount', 'zrange', 'zrangebylex', 'zrangebyscore', 'zrank', 'zrem',
    'zremrangebyscore', 'zscore',
  ],
  /** Run by Redlock's scripts on the chore locks (expire and ticker leases). */
  locks: ['del', 'exists', 'get', 'set'],
  /**
   * Sent by the engine and the worker: the scripts (FCALL, and FUNCTION LOAD
   * when the server lacks their library; EVALSHA and EVAL for a user without
   * those two, and EVAL when the server lost a script), the reads outside scripts, progress, the wake-up
   * subscription (sharded on a cluster), the worker's presence (its key with
   * a TTL and the `workers` index, in MULTI / EXEC), the event feed (events()
   * makes the stream, notes it in `features`, and keeps it alive), the dashboard's reads of one record
   * and of a template's children (lib/engine/read.ts), WAIT after each write
   * with `durability: 'replica'` (lib/engine/durability.ts), and QUIT on close.
   */
  engine: [
    'fcall', 'function|load', 'evalsha', 'eval', 'get', 'zmscore', 'zrange', 'publish', 'spublish', 'subscribe',
    'ssubscribe', 'unsubscribe', 'sunsubscribe', 'quit',
    'set', 'del', 'mget', 'zadd', 'zrem', 'zrevrange', 'multi', 'exec',
    'xadd', 'xrange', 'xrevrange', 'pexpire', 'hget', 'hmget', 'hset', 'zrangebylex', 'wait',
  ],
  /**
   * Sent by ioredis on its own: the ready check (INFO; on a cluster CLUSTER
   * INFO), the slot map of a cluster (CLUSTER SLOTS), CLIENT SETNAME for a
   * `connectionName`, SELECT for a `db`, PING, and HELLO, which RESP3 clients
   * send first. AUTH needs no rule. ioredis's CLIENT SETINFO (Redis 7.2 and
   * later; 7.0 does not know it) may be refused: ioredis ignores the answer.
   */
  client: [
    'info', 'cluster|info', 'cluster|slots', 'client|setname', 'select', 'ping', 'hello',
  ],
  /** Sent by doctor(): the clock check (TIME) and the user's name (ACL WHOAMI); both harmless. */
  doctor: ['time', 'acl|whoami'],
} as const; // prettier-ignore

/**
 * Commands doctor() also tries, outside the rule set: admin commands a
 * least-privilege user does not get. Without CONFIG GET some checks read INFO
 * or say "unknown"; without ACL DRYRUN the ACL check asks a script
 * (redis.acl_check_cmd).
 */
export const doctorAdminCommands = ['acl|dryrun', 'config|get'] as const;

type Listed = (typeof aclCommands)[keyof typeof aclCommands][number];
/** AclCommand is a command (or `command|subcommand`) of the rule set. */
export type AclCommand = Listed;

/** allowedCommands lists each command of the rule set once, sorted. */
export function allowedCommands(): AclCommand[] {
  return [...new Set(Object.values(aclCommands).flat())].sort();
}

/**
 * aclRules is the least-privilege ACL rule set of an engine's Redis user, as
 * `ACL SETUSER <user> reset on ><password> ...rules` takes it: the keys and
 * channels of one queue (`queue`), or of every queue (`rescue.io:*`) when no
 * queue is given, and the commands above, nothing else.
 *
 *     ~rescue.io:{orders}:*  &rescue.io:{orders}:*  -@all +fcall +function|load ...
 */
export function aclRules(queue?: string): string[] {
  const pattern = queue === undefined ? `${keyScheme}:*` : `${keyScheme}:{${globEscape(queue)}}:*`;
  return [
    `~${pattern}`,
    `&${pattern}`,
    '-@all',
    ...allowedCommands().map((command) => `+${command}`),
  ];
}

/** globEscape escapes what Redis's glob matching would read as a pattern. */
function globEscape(text: string): string {
  return text.replace(/[*?[\]\\]/g, '\\$&');
}

/**
 * aclProbes is one call of each command of the rule set, with arguments of the
 * right arity on the queue's own keys and channels, for ACL DRYRUN (or
 * redis.acl_check_cmd): what doctor() asks about.
 */
export function aclProbes(
  keys: QueueKeys,
  sha: string,
  functionName: string,
): [string, ...string[]][] {
  const all = keys.all;
  const lock = keys.expireLock;
  const probe = probes(keys, lock);
  const calls: [string, ...string[]][] = [
    ['FCALL', functionName, String(all.length), ...all],
    ['FUNCTION', 'LOAD', `#!lua name=${functionName}`],
    ['EVALSHA', sha, String(all.length), ...all],
    ['EVAL', 'return 1', String(all.length), ...all],
    // Redlock's scripts: one key, the lock
    ['EVALSHA', sha, '1', lock, 'token', '1000'],
  ];
  for (const command of allowedCommands()) {
    if (scriptCalls.has(command)) continue;
    for (const args of probe[command]) {
      calls.push([...command.toUpperCase().split('|'), ...args] as [string, ...string[]]);
    }
  }
  return calls;
}

/** The calls of scripts, probed above with a script's or function's name. */
const scriptCalls = new Set<AclCommand>(['fcall', 'function|load', 'evalsha', 'eval']);

/** The arguments of each probe; some commands are probed on several keys or channels. */
function probes(keys: QueueKeys, lock: string): Record<AclCommand, string[][]> {
  return {
    fcall: [],
    'function|load': [],
    evalsha: [],
    eval: [],
    exists: [[keys.tasks], [lock]],
    get: [[keys.layout], [lock]],
    del: [[lock], [keys.worker('worker')]],
    set: [
      [keys.layout, layoutVersion, 'NX'],
      [lock, 'token', 'PX', '1000'],
      [keys.worker('worker'), '{}', 'PX', '1000'],
    ],
    hdel: [[keys.tasks, 'id']],
    hexists: [[keys.filters, 'id']],
    hget: [[keys.tasks, 'id']],
    hgetall: [[keys.owners]],
    hincrby: [[keys.owners, 'worker', '1']],
    hkeys: [[keys['filter-pools']]],
    hlen: [[keys.owners]],
    hmget: [[keys.tasks, 'id']],
    hscan: [[keys.tasks, '0']],
    hset: [[keys.tasks, 'id', 'x']],
    hsetnx: [[keys.watched, 'key', '1']],
    hstrlen: [[keys.outcomes, 'id']],
    incr: [[keys.sequence]],
    incrby: [[keys.claims, '1']],
    lindex: [[keys['root-jobs'], '0']],
    lpop: [[keys['root-jobs']]],
    lset: [[keys['root-jobs'], '0', '{}']],
    rpush: [[keys['root-jobs'], '{}']],
    unlink: [[keys['meta-tasks']]],
    zadd: [
      [keys.ready, '0', 'id'],
      [keys.workers, '0', 'worker'],
    ],
    zcard: [[keys.ready]],
    zcount: [[keys.leases, '-inf', '+inf']],
    zlexcount: [[keys['owner-order'], '-', '+']],
    zmscore: [[keys.broadcast, 'id']],
    zrange: [[keys.leases, '0', '0']],
    zrangebylex: [[keys.ready, '-', '+']],
    zrangebyscore: [[keys.leases, '-inf', '+inf']],
    zrem: [
      [keys.ready, 'id'],
      [keys.workers, 'worker'],
    ],
    zremrangebyscore: [[keys['outcome-large'], '-inf', '(0']],
    zscore: [[keys.leases, 'id']],
    zpopmin: [[keys['outcome-expiry'], '1']],
    zrank: [[keys.leases, 'id']],
    zrevrange: [[keys.workers, '0', '0']],
    mget: [[keys.worker('worker')]],
    multi: [[]],
    exec: [[]],
    wait: [['0', '0']],
    xadd: [[keys.events, 'MAXLEN', '~', '10000', '*', 'e', 'x']],
    xrange: [[keys.events, '-', '+', 'COUNT', '1']],
    xrevrange: [[keys.events, '+', '-', 'COUNT', '1']],
    pexpire: [[keys.events, '600000']],
    publish: [
      [keys.signal, '{}'],
      [keys.progress, '{}'],
      [keys.control, '{}'],
      [`${keys.watch}:id`, '{}'],
    ],
    spublish: [
      [keys.signal, '{}'],
      [keys.progress, '{}'],
      [keys.control, '{}'],
      [`${keys.watch}:id`, '{}'],
    ],
    'pubsub|numsub': [[`${keys.watch}:id`]],
    'pubsub|shardnumsub': [[`${keys.watch}:id`]],
    subscribe: [[keys.signal], [keys.control], [`${keys.watch}:id`, keys.watch]],
    ssubscribe: [[keys.signal], [keys.control], [`${keys.watch}:id`, keys.watch]],
    unsubscribe: [[keys.signal]],
    sunsubscribe: [[keys.signal]],
    quit: [[]],
    time: [[]],
    'acl|whoami': [[]],
    info: [['server']],
    'cluster|info': [[]],
    'cluster|slots': [[]],
    'client|setname': [['name']],
    select: [['0']],
    ping: [[]],
    hello: [['2']],
  };
}
